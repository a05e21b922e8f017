/**
 * `mailrisk reports list|accept|reject` on a real SQLite file, with DNS over the wire to
 * the loopback server: the queue by distinct reporters, each beside today's answer and
 * its evidence; accepting sets the matching override with the report's id in its note,
 * rejecting only closes; unknown ids, a second review and bad arguments are refused.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { fixtureZones } from "../../harness/zones.js";
import { run as reports } from "../../src/cli/reports-command.js";
import { DAY_MS } from "../../src/core/time.js";
import type { ExpectedAnswer } from "../../src/store/index.js";
import { openStore } from "../../src/store/index.js";

let dns: DnsTestServer;
let database: TestDatabase;
beforeAll(async () => {
  dns = await startDnsServer(fixtureZones("engine"));
});
afterAll(() => dns.close());
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
});
afterEach(() => database.drop());

async function cli(...args: string[]) {
  const test = createTestCli(database.url, "", {
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: "300",
    AGE_LOOKUP: "off",
  });
  const code = await reports(args, test.ctx);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

/** Files reports as keys would: [key number, domain, expected]; their ids in order. */
async function filed(entries: [number, string, ExpectedAnswer][]): Promise<string[]> {
  const store = await openStore(database.location);
  try {
    await store.migrate();
    const keys: string[] = [];
    for (let i = 0; i < 3; i++)
      keys.push((await store.keys.createKey({ plan: "free", now: new Date() })).key.id);
    const ids: string[] = [];
    for (const [index, [key, domain, expected]] of entries.entries()) {
      const result = await store.reports.fileReport(
        {
          keyId: keys[key] as string,
          domain,
          expected,
          note: `note ${index}`,
          filedAt: new Date(Date.now() - 3_600_000 + index * 1000),
        },
        { max: 100, windowMs: DAY_MS },
      );
      if (!("report" in result)) throw new Error(result.outcome);
      ids.push(result.report.id);
    }
    return ids;
  } finally {
    await store.close();
  }
}

async function overrides() {
  const store = await openStore(database.location);
  try {
    return await store.overrides.listOverrides();
  } finally {
    await store.close();
  }
}

describe("mailrisk reports list", () => {
  it("shows open reports by distinct reporters, each with today's answer and evidence", async () => {
    const ids = await filed([
      [0, "gmail.com", "block"],
      [0, "mailinator.com", "allow"],
      [1, "mailinator.com", "allow"],
      [2, "mailinator.com", "allow"],
    ]);
    const json = await cli("list", "--json");
    expect(json.code).toBe(0);
    const entries = JSON.parse(json.stdout);
    expect(entries.map((e: { id: string; reporters: number }) => [e.id, e.reporters])).toEqual([
      [ids[1], 3],
      [ids[2], 3],
      [ids[3], 3],
      [ids[0], 1],
    ]);
    expect(entries[0]).toMatchObject({
      domain: "mailinator.com",
      expected: "allow",
      status: "open",
      key_id: expect.stringMatching(/^key_/),
      today: { answer: "block", risk: 95, reason: "Disposable" },
    });
    expect(entries[0].today.evidence[0]).toMatchObject({ kind: "list", entry: "mailinator.com", risk: 95 });
    expect(entries[3].today.evidence[0]).toMatchObject({ kind: "provider", category: "free" });

    const table = await cli("list");
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(
      `${ids[1]}  mailinator.com  expected allow, today block (risk 95, Disposable)  3 keys`,
    );
    expect(table.stdout).toContain("     +95  mailinator.com is on 5 disposable-domain lists");
    expect(table.stdout).toContain("    note: note 0");
    expect(table.stdout.indexOf("mailinator.com")).toBeLessThan(table.stdout.indexOf("gmail.com"));

    expect((await cli("list", "--status", "accepted")).stdout).toBe("No accepted reports.\n");
    expect(JSON.parse((await cli("list", "--limit", "1", "--json")).stdout)).toHaveLength(1);
  });

  it.each([
    [["list", "--status", "lost"]],
    [["list", "--limit", "0"]],
    [["list", "--unknown"]],
    [["accept"]],
    [["accept", "a", "b"]],
    [["frobnicate"]],
  ])("refuses %j with exit code 2", async (args) => {
    expect((await cli(...args)).code).toBe(2);
  });
});

describe("mailrisk reports accept and reject", () => {
  it("accepts: the matching override with the report's id, the domain's other reports closed alike", async () => {
    const [first, second, opposite] = await filed([
      [0, "parked-domain.test", "allow"],
      [1, "parked-domain.test", "allow"],
      [2, "parked-domain.test", "block"],
    ]);
    const accepted = await cli("accept", first as string, "--note", "our reseller's domain");
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toBe(
      `Accepted ${first} (and ${second}, of the same domain and answer): set override domain:parked-domain.test allow. Running servers take it within a second.\n`,
    );
    expect(await overrides()).toEqual([
      expect.objectContaining({
        kind: "domain",
        value: "parked-domain.test",
        action: "allow",
        note: `report ${first}: our reseller's domain`,
      }),
    ]);
    const open = JSON.parse((await cli("list", "--json")).stdout);
    expect(open.map((e: { id: string }) => e.id)).toEqual([opposite]);
    // Today's answer takes the override.
    expect(open[0].today).toMatchObject({ answer: "allow", reason: "Operator override" });
    expect(open[0].today.evidence[0]).toMatchObject({
      kind: "override",
      id: "domain:parked-domain.test",
      action: "allow",
      note: `report ${first}: our reseller's domain`,
    });

    const again = await cli("accept", first as string);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`mailrisk: The report ${first} was accepted already.\n`);
  });

  it("rejects without an override; an unknown id is exit code 1", async () => {
    const [id] = await filed([[0, "gmail.com", "block"]]);
    const rejected = await cli("reject", id as string, "--note", "it is a mailbox provider");
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toBe(`Rejected ${id}.\n`);
    expect(await overrides()).toEqual([]);
    const list = JSON.parse((await cli("list", "--status", "rejected", "--json")).stdout);
    expect(list[0]).toMatchObject({ id, status: "rejected", review_note: "it is a mailbox provider" });
    const unknown = await cli("reject", "rpt_nothere");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('mailrisk: There is no report "rpt_nothere".\n');
  });
});
