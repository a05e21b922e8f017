import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuthenticatedKey } from "../../src/store/types.js";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../support/databases.js";

const CREATED = new Date("2024-05-01T00:00:00.000Z");
const NOW = new Date("2024-05-02T00:00:00.000Z");

describe.each(DATABASE_KINDS)("quota refunds on %s", (kind) => {
  let db: TestStore;
  let key: AuthenticatedKey;
  beforeEach(async () => {
    db = await openTestStore(kind);
    await db.store.createPlan({ name: "two", quota: 2, periodDays: 30 });
    const { secret } = await db.store.createKey({ plan: "two", now: CREATED });
    key = (await db.store.authenticate(secret)) as AuthenticatedKey;
  });
  afterEach(() => db.cleanup());

  it("makes a used-up request available again", async () => {
    await db.store.consumeQuota(key, NOW);
    const last = await db.store.consumeQuota(key, NOW);
    expect(await db.store.consumeQuota(key, NOW)).toMatchObject({ allowed: false });
    await db.store.refundQuota(key, last.periodStart);
    expect(await db.store.consumeQuota(key, NOW)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("never takes the count below zero", async () => {
    const first = await db.store.consumeQuota(key, NOW);
    await db.store.refundQuota(key, first.periodStart);
    await db.store.refundQuota(key, first.periodStart);
    expect(await db.store.consumeQuota(key, NOW)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await db.store.consumeQuota(key, NOW)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await db.store.consumeQuota(key, NOW)).toMatchObject({ allowed: false });
  });

  it("does nothing for a period without requests", async () => {
    await expect(db.store.refundQuota(key, new Date("2030-01-01T00:00:00Z"))).resolves.toBeUndefined();
    expect(await db.store.consumeQuota(key, NOW)).toMatchObject({ allowed: true, remaining: 1 });
  });
});
