/**
 * The charts' use per day agrees with the quota (docs/accounts.md "The account's pages"), on both
 * databases: units given back (a 5xx's, a cancelled job's) are subtracted on the day they
 * are given back, so a period's days add up to its `used`; a refund that gives nothing
 * back (a period that has ended) changes no day either.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";

const CREATED = new Date("2026-11-01T10:00:00.000Z");
const DAY_ONE = new Date("2026-11-02T09:00:00.000Z");
const DAY_TWO = new Date("2026-11-03T17:30:00.000Z");

describe.each(DATABASE_KINDS)("use per day on %s", (kind) => {
  let db: TestStore;
  let secret: string;
  let keyId: string;
  beforeEach(async () => {
    db = await openTestStore(kind);
    await db.store.plans.createPlan({ name: "hundred", quota: 100, periodDays: 30 });
    const created = await db.store.keys.createKey({ plan: "hundred", now: CREATED });
    ({ secret } = created);
    keyId = created.key.id;
  });
  afterEach(() => db.cleanup());

  const days = async () =>
    (await db.store.usage.dailyUsage([keyId], CREATED)).map(({ day, used }) => [
      day.toISOString().slice(0, 10),
      used,
    ]);

  it("subtracts units given back on the day they are given back, so the days add up to used", async () => {
    const counted = await db.store.usage.authorize(secret, DAY_ONE, 10);
    if (!counted) throw new Error("the key does not authorize");
    await db.store.usage.flushDailyUsage();
    await db.store.usage.refund(counted.key, counted.quota.periodStart, 4, DAY_TWO);
    expect(await days()).toEqual([
      ["2026-11-02", 10],
      ["2026-11-03", -4],
    ]);
    const used = (await db.store.usage.keyUsage(keyId, DAY_TWO))?.current.used;
    expect(used).toBe(6);
  });

  it("changes no day when nothing is given back (the period is over)", async () => {
    const counted = await db.store.usage.authorize(secret, DAY_ONE, 3);
    if (!counted) throw new Error("the key does not authorize");
    await db.store.usage.flushDailyUsage();
    await db.store.usage.refund(counted.key, new Date("2026-01-01T00:00:00Z"), 3, DAY_TWO);
    expect(await days()).toEqual([["2026-11-02", 3]]);
  });
});
