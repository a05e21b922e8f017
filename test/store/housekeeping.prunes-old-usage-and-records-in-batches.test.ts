import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { mxFacts } from "../../harness/sample-facts.js";
import type { DeliveryStatus, EvidenceEntry } from "../../src/store/index.js";

const DAY = 86_400_000;
const CREATED = new Date("2024-01-01T00:00:00Z");
const at = (days: number) => new Date(CREATED.getTime() + days * DAY);

describe.each(DATABASE_KINDS)("housekeeping on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  /** A key on a plan of `periodDays`, with one request in each of the periods starting at the given days. */
  async function keyWithPeriods(periodDays: number, days: number[]): Promise<string> {
    const plan = `p${periodDays}`;
    if (!(await db.store.plans.getPlan(plan)))
      await db.store.plans.createPlan({ name: plan, quota: 10, periodDays });
    const { key, secret } = await db.store.keys.createKey({ plan, now: CREATED });
    for (const day of days) await db.store.usage.authorize(secret, at(day));
    return key.id;
  }
  const periodsOf = async (id: string) =>
    (await db.store.usage.keyUsage(id, at(0)))?.periods.map((period) => period.periodStart);

  it("deletes usage rows of periods that ended before the cut-off, by each key's plan", async () => {
    const monthly = await keyWithPeriods(30, [0, 30, 60]);
    const weekly = await keyWithPeriods(7, [0, 7, 35]);
    // Cut-off at day 37: of the monthly periods [0,30) ended, [30,60) did not; weekly [0,7) and [7,14) ended, [35,42) did not.
    expect(await db.store.housekeeping.pruneUsage(at(37), 1000)).toBe(3);
    expect(await periodsOf(monthly)).toEqual([at(60), at(30)]);
    expect(await periodsOf(weekly)).toEqual([at(35)]);
    expect(await db.store.housekeeping.pruneUsage(at(37), 1000)).toBe(0);
  });

  it("deletes at most `limit` rows a call", async () => {
    const id = await keyWithPeriods(1, [0, 1, 2, 3, 4]);
    expect(await db.store.housekeeping.pruneUsage(at(10), 2)).toBe(2);
    expect(await db.store.housekeeping.pruneUsage(at(10), 2)).toBe(2);
    expect(await db.store.housekeeping.pruneUsage(at(10), 2)).toBe(1);
    expect(await periodsOf(id)).toEqual([]);
  });

  it("deletes records checked before the cut-off, in batches, and keeps newer ones", async () => {
    for (const [index, day] of [0, 1, 2, 50].entries()) {
      const domain = `d${index}.example`;
      await db.store.records.saveFacts(domain, mxFacts(domain), at(day), false);
    }
    expect(await db.store.housekeeping.pruneRecords(at(10), 2)).toBe(2);
    expect(await db.store.housekeeping.pruneRecords(at(10), 2)).toBe(1);
    expect(await db.store.housekeeping.pruneRecords(at(10), 2)).toBe(0);
    expect(await db.store.records.getFacts("d2.example")).toBeUndefined();
    expect(await db.store.records.getFacts("d3.example")).toBeDefined();
  });

  it("deletes evidence last seen before the cut-off, in batches, over 20,000 rows", async () => {
    // 10,000 domains on 100 shared MX hosts and their own name servers: two rows each.
    const sighting = (index: number, day: number): EvidenceEntry => ({
      evidence: {
        domain: `d${index}.example`,
        mxHosts: [`mx${index % 100}.shared.example`],
        mxIps: [],
        nameServers: [`ns.d${index}.example`],
        listed: index % 3 === 0 ? "disposable" : "unknown",
        service: index % 3 === 0 ? "shared.example" : null,
      },
      seenAt: at(day),
    });
    const indexes = Array.from({ length: 10_000 }, (_, index) => index);
    await db.store.infrastructure.recordEvidence(indexes.map((index) => sighting(index, 0)));
    // Domains 0–99, 200–299, … are seen again on day 100: their rows stay, the others go.
    const seenAgain = indexes.filter((index) => Math.floor(index / 100) % 2 === 0);
    await db.store.infrastructure.recordEvidence(seenAgain.map((index) => sighting(index, 100)));
    const before = await db.store.infrastructure.listInfrastructure(1);

    // Each call deletes at most its limit, until none are left.
    const batches: number[] = [];
    do batches.push(await db.store.housekeeping.pruneEvidence(at(50), 1000));
    while (batches.length <= 10 && batches.at(-1) !== 0);
    expect(batches).toEqual([...Array<number>(10).fill(1000), 0]);

    expect(await db.store.infrastructure.domainsOn("ns", "ns.d100.example", 5)).toEqual([]);
    expect(await db.store.infrastructure.domainsOn("ns", "ns.d1.example", 5)).toEqual(["d1.example"]);
    const after = await db.store.infrastructure.listInfrastructure(1);
    const host = (list: typeof before) => list.find((summary) => summary.value === "mx0.shared.example");
    // mx0 carried d0, d100, … d9900, every third listed disposable; d0, d200, … d9800 remain.
    expect(host(before)).toMatchObject({ disposable: 34, unknown: 66 });
    expect(host(after)).toMatchObject({ disposable: 17, unknown: 33 });
    // No bound on its time: 20,000 rows written and pruned take what the machine needs.
  }, 120_000);

  it("deletes webhook events finished before the cut-off with their attempts, never pending ones", async () => {
    const { records, webhooks, housekeeping } = db.store;
    const hook = await webhooks.createWebhook({
      url: "http://127.0.0.1:1/",
      secret: "s",
      events: ["domain.blocked"],
      now: at(0),
    });
    const outcomes: Record<string, DeliveryStatus> = {
      "delivered.example": "delivered",
      "failed.example": "failed",
      "recent.example": "delivered",
    };
    for (const domain of [...Object.keys(outcomes), "pending.example"]) {
      await records.saveFacts(domain, mxFacts(domain), at(0), false);
      await records.noteBlock(domain, true, at(1), {
        watchedSince: at(-1),
        record: { reason: "operator_deny" },
      });
    }
    for (const event of await webhooks.claimDue("me", at(2), at(3), 10)) {
      const { domain } = JSON.parse(event.body) as { domain: string };
      const status = outcomes[domain];
      if (!status) continue;
      const finished = domain === "recent.example" ? at(40) : at(2);
      const attempt = { attempt: 1, at: finished, statusCode: 200, error: null, durationMs: 5 };
      await webhooks.finishAttempt(event.id, "me", attempt, { status, nextAttemptAt: finished });
    }
    expect(await housekeeping.pruneWebhookEvents(at(30), 1)).toBe(1);
    expect(await housekeeping.pruneWebhookEvents(at(30), 1)).toBe(1);
    expect(await housekeeping.pruneWebhookEvents(at(30), 1)).toBe(0);
    const left = await webhooks.deliveries(hook.id, 10);
    expect(left.map((event) => [event.domain, event.status, event.attempts.length]).sort()).toEqual([
      ["pending.example", "pending", 0],
      ["recent.example", "delivered", 1],
    ]);
  });

  it("purges named records and all records", async () => {
    for (const domain of ["a.example", "b.example", "c.example"]) {
      await db.store.records.saveFacts(domain, mxFacts(domain), at(0), false);
    }
    expect(await db.store.records.purgeRecords(["a.example", "missing.example"])).toBe(1);
    expect(await db.store.records.purgeRecords([])).toBe(0);
    expect(await db.store.records.purgeAllRecords()).toBe(2);
    expect(await db.store.records.getFacts("b.example")).toBeUndefined();
  });
});
