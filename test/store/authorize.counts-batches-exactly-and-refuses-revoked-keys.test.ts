import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { hashedSecret } from "../../src/core/key-formats.js";
import { AccountSuspendedError } from "../../src/core/refusals.js";
import type { Authorization } from "../../src/store/index.js";
import { CREATED, NOW, secretOnPlan } from "./quota-keys.js";

function remaining(results: (Authorization | undefined)[]): number[] {
  return results.flatMap((result) => (result?.quota.allowed ? [result.quota.remaining ?? Number.NaN] : []));
}

describe.each(DATABASE_KINDS)("authorize on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("answers undefined for an unknown secret and counts nothing", async () => {
    const { secret } = await secretOnPlan(db.store, 5);
    expect(await db.store.usage.authorize(`${secret}x`, NOW)).toBeUndefined();
    const first = await db.store.usage.authorize(secret, NOW);
    expect(first?.quota).toMatchObject({ allowed: true, remaining: 4, limit: 5 });
  });

  it("takes a secret hashed once for the look-up and the count, as the plain secret", async () => {
    const { secret, id } = await secretOnPlan(db.store, 5);
    const hashed = hashedSecret(secret);
    expect((await db.store.usage.findKey(hashed, NOW))?.id).toBe(id);
    expect((await db.store.usage.authorize(hashed, NOW))?.quota).toMatchObject({
      allowed: true,
      remaining: 4,
    });
    expect((await db.store.usage.authorize(secret, NOW))?.quota).toMatchObject({
      allowed: true,
      remaining: 3,
    });
    expect(await db.store.usage.findKey(hashedSecret(`${secret}x`), NOW)).toBeUndefined();
    expect(await db.store.usage.authorize(hashedSecret(`${secret}x`), NOW)).toBeUndefined();
  });

  it("hands out a key at once, reading nothing, only while it is remembered", async () => {
    const { secret, id } = await secretOnPlan(db.store, 5);
    const hashed = hashedSecret(secret);
    expect(db.store.usage.rememberedKey(hashed, NOW)).toBeUndefined();
    expect((await db.store.usage.findKey(hashed, NOW))?.id).toBe(id);
    const remembered = db.store.usage.rememberedKey(hashed, NOW);
    expect(remembered).not.toBeInstanceOf(Promise);
    expect(remembered?.id).toBe(id);
    expect(db.store.usage.rememberedKey(hashedSecret(`${secret}x`), NOW)).toBeUndefined();
    // Trusted as long as `authorize` trusts it (30 s on the requests' clock), then read again.
    expect(db.store.usage.rememberedKey(hashed, new Date(NOW.getTime() + 29_999))?.id).toBe(id);
    expect(db.store.usage.rememberedKey(hashed, new Date(NOW.getTime() + 30_000))).toBeUndefined();
    // Nothing was counted.
    expect((await db.store.usage.authorize(hashed, NOW))?.quota.remaining).toBe(4);
  });

  it("hands out no remembered key of a suspended account: authorize refuses it", async () => {
    await db.store.plans.createPlan({ name: "q5", quota: 5, periodDays: 30 });
    const made = await db.store.accounts.createAccount({
      email: "ann@example.com",
      passwordHash: null,
      role: "member",
      plan: "q5",
      now: CREATED,
    });
    await db.store.accounts.setState(made.account.id, "suspended");
    const hashed = hashedSecret(made.secret);
    // Read and remembered, as suspended.
    await expect(db.store.usage.findKey(hashed, NOW)).rejects.toThrow(AccountSuspendedError);
    expect(db.store.usage.rememberedKey(hashed, NOW)).toBeUndefined();
    await expect(db.store.usage.authorize(hashed, NOW)).rejects.toThrow(AccountSuspendedError);
  });

  it("counts requests arriving together one by one, never past the quota", async () => {
    const { secret } = await secretOnPlan(db.store, 50);
    const results = await Promise.all(
      Array.from({ length: 90 }, () => db.store.usage.authorize(secret, NOW)),
    );
    expect(remaining(results).sort((a, b) => b - a)).toEqual(Array.from({ length: 50 }, (_, i) => 49 - i));
    const refused = results.filter((result) => !result?.quota.allowed);
    expect(refused).toHaveLength(40);
    for (const result of refused) expect(result?.quota).toMatchObject({ remaining: 0, limit: 50 });
  });

  it("counts a remembered key's requests of one turn in arrival order", async () => {
    const { secret } = await secretOnPlan(db.store, 50);
    await db.store.usage.authorize(secret, NOW);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => db.store.usage.authorize(secret, NOW)),
    );
    expect(remaining(results)).toEqual(Array.from({ length: 20 }, (_, i) => 48 - i));
  });

  it("counts a batch that does not fit up to the quota and refuses the rest", async () => {
    const { secret } = await secretOnPlan(db.store, 10);
    for (let i = 0; i < 7; i++) await db.store.usage.authorize(secret, NOW);
    const results = await Promise.all(Array.from({ length: 6 }, () => db.store.usage.authorize(secret, NOW)));
    expect(results.map((result) => result?.quota.allowed)).toEqual([true, true, true, false, false, false]);
    expect(remaining(results)).toEqual([2, 1, 0]);
  });

  it("counts the keys of one batch separately", async () => {
    const a = await secretOnPlan(db.store, 3);
    const { secret: b } = await db.store.keys.createKey({ plan: "q3", now: CREATED });
    const results = await Promise.all(
      [a.secret, b, a.secret, b, a.secret].map((s) => db.store.usage.authorize(s, NOW)),
    );
    const remainingOf = (id: string | undefined) =>
      remaining(results.filter((result) => (result?.key.id === a.id) === (id === a.id))).sort();
    expect(remainingOf(a.id)).toEqual([0, 1, 2]);
    expect(remainingOf(undefined)).toEqual([1, 2]);
  });

  it("stays exact over two instances sharing the database", async () => {
    const { secret } = await secretOnPlan(db.store, 50);
    const other = await db.openAnother();
    const results = await Promise.all(
      Array.from({ length: 90 }, (_, i) => (i % 2 === 0 ? db.store : other).usage.authorize(secret, NOW)),
    );
    expect(new Set(remaining(results))).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i)));
    expect(remaining(results)).toHaveLength(50);
  });

  it("refuses a remembered key at once when another instance revokes it", async () => {
    const { id, secret } = await secretOnPlan(db.store, 100);
    expect((await db.store.usage.authorize(secret, NOW))?.quota.allowed).toBe(true);
    const cli = await db.openAnother();
    expect(await cli.keys.revokeKey(id, NOW)).toBe(true);
    expect(await db.store.usage.authorize(secret, NOW)).toBeUndefined();
    expect(
      await Promise.all([db.store.usage.authorize(secret, NOW), db.store.usage.authorize(secret, NOW)]),
    ).toEqual([undefined, undefined]);
  });

  it("sees another instance's plan change once the remembered key is 30 s old on the requests' clock", async () => {
    const { secret } = await secretOnPlan(db.store, 100);
    expect((await db.store.usage.authorize(secret, NOW))?.quota.limit).toBe(100);
    const cli = await db.openAnother();
    await cli.plans.updatePlan("q100", { quota: 500 });
    const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
    // Remembered: this instance still counts against the quota it read.
    expect((await db.store.usage.authorize(secret, later(29)))?.quota.limit).toBe(100);
    expect((await db.store.usage.authorize(secret, later(30)))?.quota.limit).toBe(500);
  });

  it("refuses every request of a plan without quota", async () => {
    const { secret } = await secretOnPlan(db.store, 0);
    const results = await Promise.all([
      db.store.usage.authorize(secret, NOW),
      db.store.usage.authorize(secret, NOW),
    ]);
    expect(results.map((result) => result?.quota)).toEqual([
      expect.objectContaining({ allowed: false, remaining: 0, limit: 0 }),
      expect.objectContaining({ allowed: false, remaining: 0, limit: 0 }),
    ]);
  });
});
