/**
 * Text from outside on the operator's terminal (docs/security.md, "Terminal output"): a
 * note with ESC, CR, BEL, OSC 52 and U+202E is refused by `POST /v2/reports` and the admin
 * API (400 `invalid_body`); one stored before that rule, and a bidirectional override the
 * API takes, reach `mailrisk reports list` and `overrides list` escaped, in the table and
 * in JSON (which keeps the value).
 */
import { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { type LiveService, openLiveService } from "../../harness/live-service.js";
import { fixtureZones } from "../../harness/zones.js";
import { runCli } from "../../src/cli/run-cli.js";
import { formatTable } from "../../src/cli/table.js";
import { terminalText } from "../../src/cli/terminal-text.js";
import { DAY_MS } from "../../src/core/time.js";

const ADMIN_TOKEN = "a".repeat(40);
/** Erases the line, writes over it, rings, writes the clipboard (OSC 52), turns the rest around. */
const FORGED = "\x1b[2K\rAPPROVED BY SECURITY TEAM\x07\x1b]52;c;ZXZpbA==\x07 \u202edesrever";
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them.
const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/;

let dns: DnsTestServer;
let service: LiveService;

beforeAll(async () => {
  dns = await startDnsServer(fixtureZones("engine"));
  service = await openLiveService({
    dnsAddress: dns.address,
    clock: () => new Date(),
    adminToken: ADMIN_TOKEN,
  });
}, 30_000);

afterAll(async () => {
  await service?.close();
  await dns?.close();
});

function capture() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return { stream, text: () => chunks.join("") };
}

async function cli(...argv: string[]) {
  const stdout = capture();
  const stderr = capture();
  const code = await runCli(argv, {
    stdin: Readable.from([]),
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: {
      DATABASE_URL: service.databaseUrl,
      LIST_SOURCES: "off",
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: "300",
      AGE_LOOKUP: "off",
    },
    cwd: process.cwd(),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe("terminalText", () => {
  it.each([
    ["\x1b[31m", "\\u001b[31m"],
    ["a\rb\tc\x07", "a\\u000db\\u0009c\\u0007"],
    ["\x7f\x85\x9b", "\\u007f\\u0085\\u009b"],
    ["\u202aa\u202eb\u2066c\u2069\u200e\u200f\u061c", "\\u202aa\\u202eb\\u2066c\\u2069\\u200e\\u200f\\u061c"],
    ["two\nlines", "two\nlines"],
    ["café 東京 😀 \\u001b", "café 東京 😀 \\u001b"],
  ])("shows %j as %j", (text, shown) => {
    expect(terminalText(text)).toBe(shown);
  });

  it("measures a table's cells escaped, so its columns stay in line", () => {
    const table = formatTable([
      ["A", "B"],
      ["\x1b[2K", "x"],
    ]).split("\n");
    expect(table).toEqual([`${"A".padEnd(9)}  B`, "\\u001b[2K  x"]);
  });
});

describe("notes", () => {
  it("are refused with control characters by POST /v2/reports and the admin API", async () => {
    const filed = await service.app.inject({
      method: "POST",
      url: "/v2/reports",
      headers: { authorization: `Bearer ${service.secret}` },
      payload: { domain: "mailinator.com", expected: "allow", note: FORGED },
    });
    expect([filed.statusCode, filed.json().code], filed.body).toEqual([400, "invalid_body"]);
    expect(filed.json().detail).toContain("without control characters");
    const override = await service.app.inject({
      method: "POST",
      url: "/admin/overrides",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { kind: "domain", value: "example.org", action: "deny", note: "\x1b]52;c;ZXZpbA==\x07" },
    });
    expect([override.statusCode, override.json().code], override.body).toEqual([400, "invalid_body"]);
  });

  it("reach reports list and overrides list escaped, in the table and in JSON", async () => {
    // Bidirectional text is a note's right (RTL languages); it is shown escaped all the same.
    const bidi = await service.app.inject({
      method: "POST",
      url: "/v2/reports",
      headers: { authorization: `Bearer ${service.secret}` },
      payload: { domain: "mailinator.com", expected: "allow", note: "ok \u202edesrever" },
    });
    expect(bidi.statusCode, bidi.body).toBe(202);
    // A note stored before the rule.
    const { key } = await service.store.keys.createKey({ plan: "tests", now: new Date() });
    await service.store.reports.fileReport(
      { keyId: key.id, domain: "guerrillamail.com", expected: "allow", note: FORGED, filedAt: new Date() },
      { max: 100, windowMs: DAY_MS },
    );
    await service.store.overrides.setOverride({
      kind: "domain",
      value: "example.org",
      action: "deny",
      note: FORGED,
      createdAt: new Date(),
    });

    const table = await cli("reports", "list");
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain("note: ok \\u202edesrever");
    expect(table.stdout).toContain(
      "note: \\u001b[2K\\u000dAPPROVED BY SECURITY TEAM\\u0007\\u001b]52;c;ZXZpbA==\\u0007 \\u202edesrever",
    );
    expect(table.stdout).not.toMatch(RAW);

    const json = await cli("reports", "list", "--json");
    expect(json.code).toBe(0);
    expect(json.stdout).not.toMatch(RAW);
    const notes = JSON.parse(json.stdout).map((entry: { note: string }) => entry.note);
    expect(notes).toEqual(expect.arrayContaining([FORGED, "ok \u202edesrever"]));

    for (const args of [
      ["overrides", "list"],
      ["overrides", "list", "--json"],
    ]) {
      const listed = await cli(...args);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain("APPROVED BY SECURITY TEAM");
      expect(listed.stdout).not.toMatch(RAW);
    }
  });
});
