import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { InvalidOriginsError, UnknownKeyError } from "../../src/core/refusals.js";
import { KNOWN_KEY_TTL_MS } from "../../src/store/usage-repository.js";

const NOW = new Date("2025-03-01T12:00:00.000Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);

describe.each(DATABASE_KINDS)("publishable keys on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  const publishable = (origins: string[]) =>
    db.store.keys.createKey({ plan: "free", now: NOW, publishable: true, origins });

  it("creates an mrp_ key with its origins normalised, once each", async () => {
    const { key, secret } = await publishable([
      "HTTPS://Shop.Example/",
      "https://shop.example:443",
      "http://127.0.0.2:3000",
    ]);
    expect(secret).toMatch(/^mrp_[0-9A-Za-z]{32}$/);
    expect(key).toMatchObject({
      prefix: secret.slice(0, 8),
      publishable: true,
      origins: ["https://shop.example", "http://127.0.0.2:3000"],
    });
    expect(await db.store.keys.getKey(key.id)).toEqual(key);
    expect(await db.store.usage.findKey(secret, NOW)).toEqual({
      ...key,
      quota: 1000,
      periodDays: 30,
      account: null,
    });
    const secretKey = await db.store.keys.createKey({ plan: "free", now: NOW });
    expect(secretKey.secret).toMatch(/^mr_[0-9A-Za-z]{32}$/);
    expect(secretKey.key).toMatchObject({ publishable: false, origins: [] });
  });

  it.each([
    [{ publishable: true, origins: [] }, /at least one origin/],
    [{ publishable: true }, /at least one origin/],
    [{ publishable: true, origins: ["*"] }, /wildcard/],
    [{ publishable: true, origins: ["https://shop.example", "https://*.example"] }, /wildcard/],
    [{ publishable: true, origins: ["https://shop.example/signup"] }, /without a path/],
    [{ origins: ["https://shop.example"] }, /only a publishable key has origins/],
  ])("refuses %j and stores nothing", async (input, reason) => {
    const refused = db.store.keys.createKey({ plan: "free", now: NOW, ...input });
    await expect(refused).rejects.toBeInstanceOf(InvalidOriginsError);
    await expect(refused).rejects.toThrow(reason);
    expect(await db.store.keys.countKeys()).toBe(0);
  });

  it("replaces a publishable key's origins and refuses them for a secret or unknown key", async () => {
    const { key } = await publishable(["https://shop.example"]);
    const moved = await db.store.keys.setKeyOrigins(key.id, [
      "https://www.shop.example",
      "https://shop.example",
    ]);
    expect(moved.origins).toEqual(["https://www.shop.example", "https://shop.example"]);
    expect((await db.store.keys.listKeys())[0]?.origins).toEqual(moved.origins);
    await expect(db.store.keys.setKeyOrigins(key.id, [])).rejects.toBeInstanceOf(InvalidOriginsError);
    await expect(db.store.keys.setKeyOrigins(key.id, ["https://*.shop.example"])).rejects.toThrow(/wildcard/);
    const secret = await db.store.keys.createKey({ plan: "free", now: NOW });
    await expect(db.store.keys.setKeyOrigins(secret.key.id, ["https://shop.example"])).rejects.toThrow(
      /is a secret key/,
    );
    await expect(db.store.keys.setKeyOrigins("key_unknown", ["https://shop.example"])).rejects.toBeInstanceOf(
      UnknownKeyError,
    );
    expect((await db.store.keys.getKey(key.id))?.origins).toEqual(moved.origins);
  });

  it("tells the origins of live publishable keys only, remembered until the keys are forgotten", async () => {
    const { key } = await publishable(["https://shop.example"]);
    await db.store.keys.createKey({ plan: "free", now: NOW });
    const listed = (origin: string, at = NOW) => db.store.usage.isPublishableOrigin(origin, at);
    expect(await listed("https://shop.example")).toBe(true);
    expect(await listed("https://other.example")).toBe(false);

    await db.store.keys.setKeyOrigins(key.id, ["https://other.example"]);
    // Remembered for a while (another instance's change), at once after the change signal.
    expect(await listed("https://other.example", later(1000))).toBe(false);
    expect(await listed("https://other.example", later(KNOWN_KEY_TTL_MS))).toBe(true);
    await db.store.keys.revokeKey(key.id, NOW);
    db.store.forgetKeys();
    expect(await listed("https://other.example")).toBe(false);
  });

  it("finds a key without counting it", async () => {
    const { key, secret } = await publishable(["https://shop.example"]);
    for (let i = 0; i < 3; i++) expect((await db.store.usage.findKey(secret, NOW))?.id).toBe(key.id);
    expect((await db.store.usage.keyUsage(key.id, NOW))?.current.used).toBe(0);
    expect(await db.store.usage.findKey(`${secret}x`, NOW)).toBeUndefined();
  });
});
