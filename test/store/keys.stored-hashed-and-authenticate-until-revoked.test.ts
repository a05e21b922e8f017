import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { UnknownPlanError } from "../../src/core/refusals.js";
import { openDatabase } from "../../src/store/database.js";

const NOW = new Date("2024-09-16T00:39:22.123Z");

describe.each(DATABASE_KINDS)("keys on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("creates a key with a 128+ bit secret, a readable prefix and a short id", async () => {
    const { key, secret } = await db.store.keys.createKey({
      plan: "free",
      name: "  billing job  ",
      now: NOW,
    });
    expect(secret).toMatch(/^mr_[0-9A-Za-z]{32}$/);
    expect(key).toEqual({
      id: expect.stringMatching(/^key_[0-9a-z]{10}$/),
      prefix: secret.slice(0, 8),
      name: "billing job",
      plan: "free",
      createdAt: NOW,
      revokedAt: null,
      publishable: false,
      origins: [],
      accountId: null,
      expiresAt: null,
    });
  });

  it("gives every key its own secret and id", async () => {
    const created = await Promise.all(
      Array.from({ length: 20 }, () => db.store.keys.createKey({ plan: "free", now: NOW })),
    );
    expect(new Set(created.map((c) => c.secret)).size).toBe(20);
    expect(new Set(created.map((c) => c.key.id)).size).toBe(20);
  });

  it("stores only the sha-256 of the secret", async () => {
    const { key, secret } = await db.store.keys.createKey({ plan: "free", name: "ci", now: NOW });
    const raw = await openDatabase(db.database.location, () => {});
    try {
      const rows = await raw.selectFrom("api_keys").selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]?.hash).toBe(createHash("sha256").update(secret).digest("hex"));
      const everything = JSON.stringify(
        await Promise.all(
          (["plans", "api_keys", "usage", "records", "recent"] as const).map((table) =>
            raw.selectFrom(table).selectAll().execute(),
          ),
        ),
      );
      expect(everything).toContain(key.prefix);
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(secret.slice(8));
    } finally {
      await raw.destroy();
    }
  });

  /** What authentication finds for a secret: the key and plan `authorize` counts against. */
  const authenticate = async (secret: string) => (await db.store.usage.authorize(secret, NOW))?.key;

  it("authenticates a secret as its key with the plan's quota and period", async () => {
    await db.store.plans.createPlan({ name: "pro", quota: 5000, periodDays: 7 });
    const { key, secret } = await db.store.keys.createKey({ plan: "pro", now: NOW });
    expect(await authenticate(secret)).toEqual({ ...key, quota: 5000, periodDays: 7, account: null });
  });

  it("authenticates nothing for an unknown or altered secret", async () => {
    const { secret } = await db.store.keys.createKey({ plan: "free", now: NOW });
    expect(await authenticate(`${secret}x`)).toBeUndefined();
    expect(await authenticate(secret.toUpperCase())).toBeUndefined();
    expect(await authenticate("")).toBeUndefined();
  });

  it("stops authenticating a revoked key and lists it with its revocation time", async () => {
    const { key, secret } = await db.store.keys.createKey({ plan: "free", now: NOW });
    const revokedAt = new Date(NOW.getTime() + 60_000);
    expect(await db.store.keys.revokeKey(key.id, revokedAt)).toBe(true);
    expect(await authenticate(secret)).toBeUndefined();
    expect(await db.store.keys.revokeKey(key.id, new Date(NOW.getTime() + 120_000))).toBe(true);
    expect(await db.store.keys.listKeys()).toEqual([{ ...key, revokedAt }]);
  });

  it("reports an unknown key on revocation", async () => {
    expect(await db.store.keys.revokeKey("key_doesnotexist", NOW)).toBe(false);
  });

  it("lists keys oldest first and counts revoked ones too", async () => {
    expect(await db.store.keys.countKeys()).toBe(0);
    const later = await db.store.keys.createKey({ plan: "free", now: new Date(NOW.getTime() + 1000) });
    const earlier = await db.store.keys.createKey({ plan: "free", name: null, now: NOW });
    await db.store.keys.revokeKey(later.key.id, NOW);
    expect((await db.store.keys.listKeys()).map((k) => k.id)).toEqual([earlier.key.id, later.key.id]);
    expect(await db.store.keys.countKeys()).toBe(2);
  });

  it("refuses a key on an unknown plan", async () => {
    await expect(db.store.keys.createKey({ plan: "gold", now: NOW })).rejects.toBeInstanceOf(
      UnknownPlanError,
    );
    expect(await db.store.keys.countKeys()).toBe(0);
  });
});
