import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import type { Store } from "../../src/store/index.js";
import { CREATED, NOW, quotaOf, secretOnPlan } from "./quota-keys.js";

/** A request of n units (as `POST /v2/bulk` will make), answered by its quota state. */
const request = async (store: Store, secret: string, units: number) =>
  quotaOf(await store.usage.authorize(secret, NOW, units));

describe.each(DATABASE_KINDS)("quota in units on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("counts n units at once, and nothing when fewer than n are left", async () => {
    const { secret } = await secretOnPlan(db.store, 10);
    expect(await request(db.store, secret, 4)).toMatchObject({ allowed: true, remaining: 6 });
    expect(await request(db.store, secret, 4)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await request(db.store, secret, 3)).toMatchObject({ allowed: false, remaining: 0, limit: 10 });
    // The refused request counted nothing: both units left are still there.
    expect(await request(db.store, secret, 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await request(db.store, secret, 1)).toMatchObject({ allowed: false });
  });

  it("refuses a request of more units than the whole quota, and one of the whole quota fits", async () => {
    const { secret } = await secretOnPlan(db.store, 5);
    expect(await request(db.store, secret, 6)).toMatchObject({ allowed: false, remaining: 0 });
    expect(await request(db.store, secret, 5)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("counts requests of different sizes arriving together in arrival order", async () => {
    // The first request of a key looks the key up; later ones reach the batch in arrival order.
    const { secret: fits } = await secretOnPlan(db.store, 21);
    await request(db.store, fits, 1);
    const together = await Promise.all([3, 1, 5].map((units) => request(db.store, fits, units)));
    expect(together.map((state) => state.remaining)).toEqual([17, 16, 11]);

    // 3 + 1 + 5 + 2 + 1 = 12 do not fit in 10: each request on its own, in order; the
    // 2-unit request finds only 1 left, the 1-unit request after it still fits.
    const { secret: tight } = await db.store.keys.createKey({ plan: "q21", now: CREATED });
    await request(db.store, tight, 11);
    const states = await Promise.all([3, 1, 5, 2, 1].map((units) => request(db.store, tight, units)));
    expect(states.map((state) => [state.allowed, state.remaining])).toEqual([
      [true, 7],
      [true, 6],
      [true, 1],
      [false, 0],
      [true, 0],
    ]);
  });

  it("stays exact for n-unit requests over two instances sharing the database", async () => {
    const { secret } = await secretOnPlan(db.store, 100);
    const other = await db.openAnother();
    const states = await Promise.all(
      Array.from({ length: 60 }, (_, i) => request(i % 2 === 0 ? db.store : other, secret, 3)),
    );
    // 33 × 3 = 99 units fit in 100; a 34th request would need 102.
    expect(states.filter((state) => state.allowed)).toHaveLength(33);
    expect(await request(other, secret, 2)).toMatchObject({ allowed: false });
    expect(await request(db.store, secret, 1)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("gives n units back on refund, never below zero", async () => {
    const { secret } = await secretOnPlan(db.store, 10);
    const authorization = await db.store.usage.authorize(secret, NOW, 4);
    if (!authorization) throw new Error("the key does not authorize");
    await db.store.usage.refund(authorization.key, authorization.quota.periodStart, 4);
    expect(await request(db.store, secret, 10)).toMatchObject({ allowed: true, remaining: 0 });
    await db.store.usage.refund(authorization.key, authorization.quota.periodStart, 3);
    await db.store.usage.refund(authorization.key, authorization.quota.periodStart, 30);
    expect(await request(db.store, secret, 10)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("refuses a number of units that is not a whole number of at least 0", async () => {
    const { secret } = await secretOnPlan(db.store, 10);
    for (const units of [-1, 1.5, Number.NaN]) {
      await expect(db.store.usage.authorize(secret, NOW, units)).rejects.toBeInstanceOf(RangeError);
    }
    expect(await request(db.store, secret, 1)).toMatchObject({ allowed: true, remaining: 9 });
  });
});
