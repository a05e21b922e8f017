/**
 * The quota is the account's (docs/accounts.md): its keys draw from one count, exactly
 * under concurrency, the period anchored at the account's creation; a key without an
 * account keeps its own count. A key named by its id (the console's uploads) counts in
 * the same count, all or nothing, until it is revoked.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";

const CREATED = new Date("2026-01-01T00:00:00Z");
const DAY = 86_400_000;

describe.each(DATABASE_KINDS)("an account's keys on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("count 90 parallel requests over two keys against one quota of 50: exactly 50 allowed", async () => {
    await db.store.plans.createPlan({ name: "small", quota: 50, periodDays: 30 });
    const made = await db.store.accounts.createAccount({
      email: "ann@example.com",
      passwordHash: null,
      role: "member",
      plan: "small",
      now: CREATED,
    });
    // A key made later still counts in periods anchored at the account's creation.
    const later = new Date(CREATED.getTime() + 10 * DAY);
    const second = await db.store.keys.createKey({ plan: "small", now: later, accountId: made.account.id });
    const own = await db.store.keys.createKey({ plan: "small", now: later });
    const now = new Date(CREATED.getTime() + 31 * DAY);
    const secrets = [made.secret, second.secret];
    const answers = await Promise.all(
      Array.from({ length: 90 }, (_, i) => db.store.usage.authorize(secrets[i % 2] ?? "", now)),
    );
    expect(answers.filter((answer) => answer?.quota.allowed)).toHaveLength(50);
    const state = (await db.store.usage.authorize(second.secret, now, 0))?.quota;
    expect(state).toMatchObject({
      used: 50,
      remaining: 0,
      periodStart: new Date(CREATED.getTime() + 30 * DAY),
    });
    expect((await db.store.usage.authorize(own.secret, now))?.quota).toMatchObject({
      allowed: true,
      used: 1,
    });
  });

  it("counts units for a key named by its id in the account's count, all or nothing, until it is revoked", async () => {
    await db.store.plans.createPlan({ name: "small", quota: 50, periodDays: 30 });
    const made = await db.store.accounts.createAccount({
      email: "ann@example.com",
      passwordHash: null,
      role: "member",
      plan: "small",
      now: CREATED,
    });
    const [key] = await db.store.keys.accountKeys(made.account.id);
    const id = key?.id ?? "";
    const now = new Date(CREATED.getTime() + DAY);
    expect((await db.store.usage.authorize(made.secret, now, 10))?.quota.allowed).toBe(true);
    expect((await db.store.usage.authorizeKey(id, now, 30))?.quota).toMatchObject({
      allowed: true,
      used: 40,
    });
    expect((await db.store.usage.authorizeKey(id, now, 11))?.quota).toMatchObject({ allowed: false });
    expect((await db.store.usage.authorizeKey(id, now, 0))?.quota).toMatchObject({ used: 40, remaining: 10 });
    expect((await db.store.usage.authorize(made.secret, now, 0))?.quota).toMatchObject({ used: 40 });
    await db.store.keys.revokeKey(id, now);
    expect(await db.store.usage.authorizeKey(id, now, 1)).toBeUndefined();
    expect(await db.store.usage.authorizeKey("key_unknown", now, 1)).toBeUndefined();
  });
});
