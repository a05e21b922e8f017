import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import type { QuotaState, Store } from "../../src/store/index.js";
import { CREATED, NOW, quotaOf, secretOnPlan } from "./quota-keys.js";

function allowed(states: QuotaState[]): QuotaState[] {
  return states.filter((state) => state.allowed);
}

describe.each(DATABASE_KINDS)("quota on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  const count = async (store: Store, secret: string, units?: number) =>
    quotaOf(await store.usage.authorize(secret, NOW, units));

  it("allows exactly 50 of 90 parallel requests on a quota of 50", async () => {
    const { secret } = await secretOnPlan(db.store, 50);
    const states = await Promise.all(Array.from({ length: 90 }, () => count(db.store, secret)));
    expect(allowed(states)).toHaveLength(50);
    // Every counted request saw a different count: remaining 49, 48, …, 0.
    expect(new Set(allowed(states).map((s) => s.remaining))).toEqual(
      new Set(Array.from({ length: 50 }, (_, i) => i)),
    );
    for (const refused of states.filter((s) => !s.allowed)) expect(refused.remaining).toBe(0);
    expect(await count(db.store, secret)).toMatchObject({ allowed: false, remaining: 0, limit: 50 });
  });

  it("allows exactly 50 of 90 requests spread over two instances sharing the database", async () => {
    const { secret } = await secretOnPlan(db.store, 50);
    const other = await db.openAnother();
    const instances = [db.store, other];
    const states = await Promise.all(
      Array.from({ length: 90 }, (_, i) => count(instances[i % 2] as Store, secret)),
    );
    expect(allowed(states)).toHaveLength(50);
    expect(await count(other, secret)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it("never counts a request on a plan with quota 0", async () => {
    const { secret } = await secretOnPlan(db.store, 0);
    const states = await Promise.all(Array.from({ length: 5 }, () => count(db.store, secret)));
    expect(allowed(states)).toHaveLength(0);
    expect(states[0]).toMatchObject({ allowed: false, limit: 0, remaining: 0 });
  });

  it("keeps the counts of different keys apart", async () => {
    const { secret: a } = await secretOnPlan(db.store, 2);
    const { secret: b } = await db.store.keys.createKey({ plan: "q2", now: CREATED });
    await count(db.store, a);
    await count(db.store, a);
    expect(await count(db.store, a)).toMatchObject({ allowed: false });
    expect(await count(db.store, b)).toMatchObject({ allowed: true, remaining: 1 });
  });
});
