import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { sampleRecord, sampleVerdict } from "../../harness/sample-record.js";

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
      await db.store.records.saveRecord(
        sampleRecord({ domain, base_domain: domain }),
        sampleVerdict(sampleRecord({ domain, base_domain: domain })),
        at(day),
      );
    }
    expect(await db.store.housekeeping.pruneRecords(at(10), 2)).toBe(2);
    expect(await db.store.housekeeping.pruneRecords(at(10), 2)).toBe(1);
    expect(await db.store.housekeeping.pruneRecords(at(10), 2)).toBe(0);
    expect(await db.store.records.getRecord("d2.example")).toBeUndefined();
    expect(await db.store.records.getRecord("d3.example")).toBeDefined();
  });

  it("purges named records and all records", async () => {
    for (const domain of ["a.example", "b.example", "c.example"]) {
      await db.store.records.saveRecord(
        sampleRecord({ domain, base_domain: domain }),
        sampleVerdict(sampleRecord({ domain, base_domain: domain })),
        at(0),
      );
    }
    expect(await db.store.records.purgeRecords(["a.example", "missing.example"])).toBe(1);
    expect(await db.store.records.purgeRecords([])).toBe(0);
    expect(await db.store.records.purgeAllRecords()).toBe(2);
    expect(await db.store.records.getRecord("b.example")).toBeUndefined();
  });
});
