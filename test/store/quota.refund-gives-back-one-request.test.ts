import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import type { Authorization } from "../../src/store/index.js";

const CREATED = new Date("2024-05-01T00:00:00.000Z");
const NOW = new Date("2024-05-02T00:00:00.000Z");

describe.each(DATABASE_KINDS)("quota refunds on %s", (kind) => {
  let db: TestStore;
  let secret: string;
  beforeEach(async () => {
    db = await openTestStore(kind);
    await db.store.plans.createPlan({ name: "two", quota: 2, periodDays: 30 });
    ({ secret } = await db.store.keys.createKey({ plan: "two", now: CREATED }));
  });
  afterEach(() => db.cleanup());

  const authorize = async (): Promise<Authorization> =>
    (await db.store.usage.authorize(secret, NOW)) ?? expect.fail("the key does not authorize");

  it("makes a used-up request available again", async () => {
    await authorize();
    const last = await authorize();
    expect((await authorize()).quota).toMatchObject({ allowed: false });
    await db.store.usage.refund(last.key, last.quota.periodStart);
    expect((await authorize()).quota).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("never takes the count below zero", async () => {
    const first = await authorize();
    await db.store.usage.refund(first.key, first.quota.periodStart);
    await db.store.usage.refund(first.key, first.quota.periodStart);
    expect((await authorize()).quota).toMatchObject({ allowed: true, remaining: 1 });
    expect((await authorize()).quota).toMatchObject({ allowed: true, remaining: 0 });
    expect((await authorize()).quota).toMatchObject({ allowed: false });
  });

  it("does nothing for a period without requests", async () => {
    const { key } = await authorize();
    await expect(db.store.usage.refund(key, new Date("2030-01-01T00:00:00Z"))).resolves.toBeUndefined();
    expect((await authorize()).quota).toMatchObject({ allowed: true, remaining: 0 });
  });
});
