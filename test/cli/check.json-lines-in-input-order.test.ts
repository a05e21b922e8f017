/**
 * `mailrisk check` (docs/api.md "Running it") end to end: the configured DNS server (the loopback
 * authoritative server with the engine zones), the configured registries (loopback RDAP
 * and WHOIS, so nothing leaves the machine) and the database cache on a temporary SQLite
 * file. `--json` prints one full record per input, in input order, and a problem object
 * for a bad input while the run goes on, each with the input as given first; `-` reads
 * inputs from stdin, a blank line being a problem; exit code 0 when every input was
 * checked, 1 when any was rejected, 2 on usage errors. The resolver's time-out is paced
 * (check-world.ts): only the silent name trips it on a loaded machine.
 *
 * @room apart: gmail.com's age must come from the loopback registry within the check's
 * 200 ms wait for the registries (AGE_WAIT_MS, a constant of the service), which a loaded
 * machine trips (test/projects.ts).
 */

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { fixture } from "../../harness/loopback-registries.js";
import type { CheckRecord } from "../../src/core/record.js";
import { FULL_FIELDS } from "../../src/core/record.js";
import { type CheckWorld, startCheckWorld } from "./check-world.js";

let world: CheckWorld;
let database: TestDatabase;

beforeAll(async () => {
  world = await startCheckWorld((domain) =>
    domain === "gmail.com" ? { status: 200, body: fixture("rdap/registered.json") } : { status: 404 },
  );
});
afterAll(() => world.close());
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
});
afterEach(() => database.drop());

interface Problem {
  input: string;
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
}

const check = (args: string[], stdin = "") => world.check(database.url, args, stdin);

type Line = (CheckRecord & { input: string }) | Problem;

function jsonLines(stdout: string): Line[] {
  expect(stdout.endsWith("\n")).toBe(true);
  return stdout
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
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
    expect(lines.map((line) => line.input)).toEqual(inputs);

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
      input: "not a domain",
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

  it("prints the input as given, then the full record in the contract's field order", async () => {
    const { stdout } = await check([" Fallback.test ", "--json"]);
    const [record] = jsonLines(stdout) as [CheckRecord & { input: string }];
    expect(Object.keys(record)).toEqual(["input", ...FULL_FIELDS]);
    expect(record).toMatchObject({ input: " Fallback.test ", domain: "fallback.test" });
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

  it("reads one input per line from stdin for `-`, in place among the arguments; a blank line is a problem", async () => {
    const stdin = "gmail.com\n\n  fallback.test  \r\nbad..domain\n";
    const { code, stdout } = await check(["tie.test", "-", "null-mx.test", "--json"], stdin);
    expect(code).toBe(1);
    const lines = jsonLines(stdout);
    expect(lines.map((line) => ("domain" in line ? line.domain : line.code))).toEqual([
      "tie.test",
      "gmail.com",
      "missing_input",
      "fallback.test",
      "invalid_domain",
      "null-mx.test",
    ]);
    expect(lines.map((line) => line.input)).toEqual([
      "tie.test",
      "gmail.com",
      "",
      "  fallback.test  ",
      "bad..domain",
      "null-mx.test",
    ]);
  });

  it("keeps only blocked (and rejected) inputs with --only block, only the others with --only allow", async () => {
    const inputs = ["gmail.com", "mailinator.com", "not a domain", "tie.test"];
    const block = await check([...inputs, "--json", "--only", "block"]);
    expect(jsonLines(block.stdout).map((line) => line.input)).toEqual(["mailinator.com", "not a domain"]);
    const allow = await check([...inputs, "--json", "--only", "allow"]);
    expect(jsonLines(allow.stdout).map((line) => line.input)).toEqual(["gmail.com", "tie.test"]);
  });

  it("answers a second run from the database cache without asking DNS again", async () => {
    const first = await check(["google-hosted.test", "--json"]);
    world.dns.queries.clear();
    const second = await check(["google-hosted.test", "--json"]);
    expect(world.dns.queries.total).toBe(0);
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

  /** Where each column of a line starts (two spaces or more end a cell). */
  const starts = (line: string) => [
    0,
    ...[...line.matchAll(/ {2,}(?=\S)/g)].map((m) => m.index + m[0].length),
  ];
  const LONG = `a-very-long-local-part-of-an-address.${"x".repeat(20)}@gmail.com`;

  it("fits the table of arguments to its widest cells, so every column stays aligned", async () => {
    const { stdout } = await check([LONG, "tie.test", "gmail.com"]);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[1]?.startsWith(`${LONG}  `)).toBe(true);
    const header = starts(lines[0] ?? "");
    for (const line of lines.slice(1)) expect(starts(line)).toEqual(header.slice(0, starts(line).length));
  });

  it("streams the table of stdin in fixed columns, a cell too wide cut with …", async () => {
    const { stdout } = await check(["-"], `${LONG}\ntie.test\n`);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[1]).toMatch(/^a-very-long-local-part-of-an-ad… {2}true/);
    const header = starts(lines[0] ?? "");
    for (const line of lines.slice(1)) expect(starts(line)).toEqual(header.slice(0, starts(line).length));
  });
});

describe("mailrisk check usage errors", () => {
  it.each([
    [[], /usage: mailrisk check/],
    [["--json"], /usage: mailrisk check/],
    [["gmail.com", "--concurrency", "0"], /--concurrency must be a whole number/],
    [["gmail.com", "--xml"], /usage: mailrisk check/],
    [["-", "-"], /- \(stdin\) may be given once/],
    [["-", "gmail.com", "-", "--json"], /- \(stdin\) may be given once/],
    [["gmail.com", "--only", "maybe"], /--only takes block or allow/],
    [["gmail.com", "--json", "--csv"], /exclude each other/],
    [["gmail.com", "--column", "email"], /^mailrisk: --column goes with --csv\n/],
    [["gmail.com", "--encoding", "latin1"], /^mailrisk: --encoding goes with --csv\n/],
    [
      ["--csv", "--encoding", "ebcdic"],
      /--encoding takes utf-8, latin1, windows-1252 or utf-16; got "ebcdic"/,
    ],
    [["gmail.com", "--xml"], /^mailrisk: unknown option --xml \(this command takes --json, --csv/],
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
    const { code, stderr } = await check(["-"], "");
    expect(code).toBe(2);
    expect(stderr).toMatch(/usage: mailrisk check/);
  });
});
