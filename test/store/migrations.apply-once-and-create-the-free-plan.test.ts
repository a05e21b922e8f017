import { type Migration, Migrator, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../../harness/databases.js";
import { openDatabase } from "../../src/store/database.js";
import type { Store } from "../../src/store/index.js";
import { openStore, StoreUnavailableError } from "../../src/store/index.js";
import { migrations } from "../../src/store/migrations/index.js";

describe.each(DATABASE_KINDS)("migrations on %s", (kind) => {
  let database: TestDatabase;
  const opened: Store[] = [];
  const open = async () => {
    const store = await openStore(database.location);
    opened.push(store);
    return store;
  };

  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    await database.drop();
  });

  it("applies every migration once, then nothing, from any instance", async () => {
    const first = await open();
    expect(await first.migrate()).toEqual(Object.keys(migrations));
    expect(await first.migrate()).toEqual([]);
    const second = await open();
    expect(await second.migrate()).toEqual([]);
  });

  it("creates the built-in plans: free, 1000 requests per 30 days, and unlimited", async () => {
    const store = await open();
    await store.migrate();
    expect(await store.plans.listPlans()).toEqual([
      { name: "free", quota: 1000, periodDays: 30 },
      { name: "unlimited", quota: null, periodDays: 30 },
    ]);
  });

  it("keeps plans, keys and usage when 0002 makes the quota column nullable", async () => {
    const db = await openDatabase(database.location, () => {});
    const first = { "0001_initial": migrations["0001_initial"] as Migration };
    await new Migrator({ db, provider: { getMigrations: async () => first } }).migrateToLatest();
    await db.insertInto("plans").values({ name: "pro", quota: 5, period_days: 7, created_at: 1 }).execute();
    await sql`insert into api_keys (id, prefix, hash, name, plan, created_at)
      values ('key_1', 'mr_x', 'h', null, 'pro', 1)`.execute(db);
    await db.insertInto("usage").values({ key_id: "key_1", period_start: 1, used: 3 }).execute();
    await db.destroy();

    const store = await open();
    expect(await store.migrate()).toEqual(Object.keys(migrations).slice(1));
    expect(await store.plans.listPlans()).toEqual([
      { name: "pro", quota: 5, periodDays: 7 },
      { name: "free", quota: 1000, periodDays: 30 },
      { name: "unlimited", quota: null, periodDays: 30 },
    ]);
    expect(await store.usage.keyUsage("key_1", new Date(2))).toMatchObject({
      plan: { name: "pro", quota: 5, periodDays: 7 },
      periods: [{ periodStart: new Date(1), used: 3 }],
    });
  });

  it("drops the recently checked list once, as 0012 makes it show only what the pages checked", async () => {
    const db = await openDatabase(database.location, () => {});
    const names = Object.keys(migrations);
    const before = Object.fromEntries(
      names
        .slice(0, names.indexOf("0012_recent_from_pages_only"))
        .map((name) => [name, migrations[name] as Migration]),
    );
    await new Migrator({ db, provider: { getMigrations: async () => before } }).migrateToLatest();
    await db.insertInto("recent").values({ domain: "acme-confidential-merger.com", checked_at: 1 }).execute();
    await db.destroy();

    const store = await open();
    expect(await store.migrate()).toEqual(names.slice(names.indexOf("0012_recent_from_pages_only")));
    expect(await store.recent.listRecent(10)).toEqual([]);
    await store.recent.addRecent([{ domain: "gmail.com", checkedAt: new Date(2) }]);
    expect(await store.migrate()).toEqual([]);
    expect((await store.recent.listRecent(10)).map(({ domain }) => domain)).toEqual(["gmail.com"]);
  });

  it("keeps the data when the database is opened again", async () => {
    const store = await open();
    await store.migrate();
    const { key } = await store.keys.createKey({ plan: "free", now: new Date() });
    await store.close();
    opened.splice(opened.indexOf(store), 1);
    const reopened = await open();
    expect(await reopened.migrate()).toEqual([]);
    expect((await reopened.keys.listKeys()).map((k) => k.id)).toEqual([key.id]);
  });

  it("answers ping once migrated, and calls an unmigrated database unavailable", async () => {
    const store = await open();
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await store.migrate();
    await expect(store.ping()).resolves.toBeUndefined();
    await expect(store.ping()).resolves.toBeUndefined();
  });

  // Several PostgreSQL instances start at once; Kysely's advisory lock lets one migrate.
  // (Two SQLite instances in one process cannot: better-sqlite3 blocks the thread.)
  it.runIf(kind === "postgres")("lets instances starting together migrate exactly once", async () => {
    const stores = await Promise.all([open(), open(), open()]);
    const applied = await Promise.all(stores.map((store) => store.migrate()));
    expect(applied.flat()).toEqual(Object.keys(migrations));
  });
});
