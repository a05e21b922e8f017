/**
 * `mailrisk check` (docs/api.md §9) end to end: the configured DNS server (the loopback
 * authoritative server with the engine zones), the configured registries (loopback RDAP
 * and WHOIS, so nothing leaves the machine) and the database cache on a temporary SQLite
 * file. `--json` prints one full record per input, in input order, and a problem object
 * for a bad input while the run goes on; `-` reads inputs from stdin; exit code 0 when
 * every input was checked, 1 when any was rejected, 2 on usage errors.
 */

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import {
  fixture,
  type LoopbackRdap,
  type LoopbackWhois,
  startRdapServer,
  startWhoisServer,
  writeBootstrap,
} from "../../harness/loopback-registries.js";
import { FULL_FIELDS } from "../../harness/record-fields.js";
import { fixtureZones } from "../../harness/zones.js";
import { run } from "../../src/cli/check.js";
import { loadConfig } from "../../src/config.js";
import type { CheckRecord } from "../../src/core/record.js";

let dns: DnsTestServer;
let rdap: LoopbackRdap;
let whois: LoopbackWhois;
let bootstrapFile: string;
let database: TestDatabase;

beforeAll(async () => {
  dns = await startDnsServer(fixtureZones("engine"));
  rdap = await startRdapServer((domain) =>
    domain === "gmail.com" ? { status: 200, body: fixture("rdap/registered.json") } : { status: 404 },
  );
  whois = await startWhoisServer(() => "No match\r\n");
  bootstrapFile = await writeBootstrap(
    Object.fromEntries(["test", "com", "de"].map((tld) => [tld, rdap.baseUrl])),
  );
});
afterAll(async () => {
  await Promise.all([dns.close(), rdap.close(), whois.close()]);
});
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
});
afterEach(() => database.drop());

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
}

async function check(args: string[], stdin = "") {
  const cli = createTestCli(database.url, stdin);
  const config = loadConfig({
    DATABASE_URL: database.url,
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: "300",
    RDAP_BOOTSTRAP_FILE: bootstrapFile,
    WHOIS_SERVER: whois.address,
    AGE_TIMEOUT_MS: "2000",
  });
  const code = await run(args, { ...cli.ctx, config });
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

function jsonLines(stdout: string): (CheckRecord | Problem)[] {
  expect(stdout.endsWith("\n")).toBe(true);
  return stdout
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as CheckRecord | Problem);
}

describe("mailrisk check --json", () => {
  it("prints one line per input in input order, a problem for a bad input, and exits 1", async () => {
    // The first input times out, so it finishes last: the output must still lead with it.
    const inputs = [
      "timeout.test",
      "gmail.com",
      "not a domain",
      "admin@gmail.com",
      "does-not-exist.test",
      "münchen.de",
      "mailinator.com",
    ];
    const { code, stdout, stderr } = await check([...inputs, "--json"]);
    expect({ code, stderr }).toEqual({ code: 1, stderr: "" });
    const lines = jsonLines(stdout);
    expect(lines).toHaveLength(inputs.length);

    const [timedOut, gmail, problem, admin, missing, idn, disposable] = lines as [
      CheckRecord,
      CheckRecord,
      Problem,
      CheckRecord,
      CheckRecord,
      CheckRecord,
      CheckRecord,
    ];
    expect(timedOut).toMatchObject({ domain: "timeout.test", valid: true, reason: "DNS timeout" });
    expect(gmail).toMatchObject({
      domain: "gmail.com",
      valid: true,
      block: false,
      risk: 0,
      reason: "Public free provider",
      mx_host: "gmail-smtp-in.l.google.com",
      email_provider: "Gmail",
      is_role_based_email: false,
      domain_created_at: "1995-08-14T04:00:00+00:00",
    });
    expect(gmail.domain_age_days).toBeGreaterThan(11_000);
    expect(problem).toEqual({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: expect.stringContaining("not a domain"),
      code: "invalid_domain",
    });
    expect(admin).toMatchObject({ domain: "gmail.com", is_role_based_email: true, risk: 10 });
    expect(missing).toMatchObject({ domain: "does-not-exist.test", valid: false, reason: "NXDOMAIN" });
    expect(idn).toMatchObject({ domain: "xn--mnchen-3ya.de", mx_host: "mail.xn--mnchen-3ya.de" });
    expect(disposable).toMatchObject({ domain: "mailinator.com", block: true, reason: "Disposable" });
  });

  it("prints full records in the contract's field order", async () => {
    const { stdout } = await check(["fallback.test", "--json"]);
    const [record] = jsonLines(stdout) as [CheckRecord];
    expect(Object.keys(record)).toEqual(FULL_FIELDS);
    expect(record).toMatchObject({ mx_fallback: true, mx_hosts: ["fallback.test"] });
  });

  it("exits 0 when every input was checked, blocked and invalid domains included", async () => {
    const { code, stdout } = await check(["does-not-exist.test", "mailinator.com", "null-mx.test", "--json"]);
    expect(code).toBe(0);
    expect(jsonLines(stdout).map((line) => ("domain" in line ? line.block : "problem"))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("reads one input per non-empty line from stdin for `-`, in place among the arguments", async () => {
    const stdin = "gmail.com\n\n  fallback.test  \r\nbad..domain\n";
    const { code, stdout } = await check(["tie.test", "-", "null-mx.test", "--json"], stdin);
    expect(code).toBe(1);
    expect(jsonLines(stdout).map((line) => ("domain" in line ? line.domain : line.code))).toEqual([
      "tie.test",
      "gmail.com",
      "fallback.test",
      "invalid_domain",
      "null-mx.test",
    ]);
  });

  it("answers a second run from the database cache without asking DNS again", async () => {
    const first = await check(["google-hosted.test", "--json"]);
    dns.queries.clear();
    const second = await check(["google-hosted.test", "--json"]);
    expect(dns.queries.total).toBe(0);
    expect(second.stdout).toBe(first.stdout);
  });
});

describe("mailrisk check without --json", () => {
  it("prints a table in input order, with the problem in place of a bad input's record", async () => {
    const { code, stdout } = await check(["gmail.com", "bad..test", "does-not-exist.test", "tie.test"]);
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^input\s+valid\s+block\s+risk\s+reason\s+mx_host\s+provider$/);
    expect(lines[1]).toMatch(
      /^gmail\.com\s+true\s+false\s+0\s+Public free provider\s+gmail-smtp-in\.l\.google\.com\s+Gmail$/,
    );
    expect(lines[2]).toMatch(/^bad\.\.test\s+-\s+-\s+-\s+error: .+$/);
    expect(lines[3]).toMatch(/^does-not-exist\.test\s+false\s+true\s+100\s+NXDOMAIN$/);
    expect(lines[4]).toMatch(/^tie\.test\s+true\s+false\s+0\s+Self-hosted\s+mx-a\.tie\.test$/);
  });
});

describe("mailrisk check usage errors", () => {
  it.each([
    [[], /usage: mailrisk check/],
    [["--json"], /usage: mailrisk check/],
    [["gmail.com", "--concurrency", "0"], /--concurrency must be a whole number/],
    [["gmail.com", "--xml"], /usage: mailrisk check/],
  ])("%j exits 2 and prints nothing on stdout", async (args, message) => {
    const { code, stdout, stderr } = await check(args);
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toMatch(message);
  });

  it("takes inputs that start with a dash after `--`, as inputs", async () => {
    const { code, stdout } = await check(["--json", "--", "-bad-.test", "gmail.com"]);
    const [problem, gmail] = jsonLines(stdout) as [Problem, CheckRecord];
    expect(code).toBe(1);
    expect(problem).toMatchObject({ status: 400, code: "invalid_domain" });
    expect(gmail).toMatchObject({ domain: "gmail.com", valid: true });
  });

  it("exits 2 when stdin holds no input for `-`", async () => {
    const { code, stderr } = await check(["-"], "\n\n");
    expect(code).toBe(2);
    expect(stderr).toMatch(/usage: mailrisk check/);
  });
});
