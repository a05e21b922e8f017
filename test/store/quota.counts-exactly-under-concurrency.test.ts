import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuthenticatedKey, QuotaState, Store } from "../../src/store/types.js";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../support/databases.js";

const CREATED = new Date("2024-03-01T10:00:00.000Z");
const NOW = new Date("2024-03-02T10:00:00.000Z");

async function keyOnPlan(store: Store, quota: number): Promise<AuthenticatedKey> {
  await store.createPlan({ name: `q${quota}`, quota, periodDays: 30 });
  const { secret } = await store.createKey({ plan: `q${quota}`, now: CREATED });
  const key = await store.authenticate(secret);
  if (!key) throw new Error("the new key does not authenticate");
  return key;
}

function allowed(states: QuotaState[]): QuotaState[] {
  return states.filter((state) => state.allowed);
}

describe.each(DATABASE_KINDS)("quota on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("allows exactly 50 of 90 parallel requests on a quota of 50", async () => {
    const key = await keyOnPlan(db.store, 50);
    const states = await Promise.all(Array.from({ length: 90 }, () => db.store.consumeQuota(key, NOW)));
    expect(allowed(states)).toHaveLength(50);
    // Every counted request saw a different count: remaining 49, 48, …, 0.
    expect(new Set(allowed(states).map((s) => s.remaining))).toEqual(
      new Set(Array.from({ length: 50 }, (_, i) => i)),
    );
    for (const refused of states.filter((s) => !s.allowed)) expect(refused.remaining).toBe(0);
    expect(await db.store.consumeQuota(key, NOW)).toMatchObject({ allowed: false, remaining: 0, limit: 50 });
  });

  it("allows exactly 50 of 90 requests spread over two instances sharing the database", async () => {
    const key = await keyOnPlan(db.store, 50);
    const other = await db.openAnother();
    const instances = [db.store, other];
    const states = await Promise.all(
      Array.from({ length: 90 }, (_, i) => (instances[i % 2] as Store).consumeQuota(key, NOW)),
    );
    expect(allowed(states)).toHaveLength(50);
    expect(await other.consumeQuota(key, NOW)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it("never counts a request on a plan with quota 0", async () => {
    const key = await keyOnPlan(db.store, 0);
    const states = await Promise.all(Array.from({ length: 5 }, () => db.store.consumeQuota(key, NOW)));
    expect(allowed(states)).toHaveLength(0);
    expect(states[0]).toMatchObject({ allowed: false, limit: 0, remaining: 0 });
  });

  it("keeps the counts of different keys apart", async () => {
    const a = await keyOnPlan(db.store, 2);
    const { secret } = await db.store.createKey({ plan: "q2", now: CREATED });
    const b = (await db.store.authenticate(secret)) as AuthenticatedKey;
    await db.store.consumeQuota(a, NOW);
    await db.store.consumeQuota(a, NOW);
    expect(await db.store.consumeQuota(a, NOW)).toMatchObject({ allowed: false });
    expect(await db.store.consumeQuota(b, NOW)).toMatchObject({ allowed: true, remaining: 1 });
  });
});
