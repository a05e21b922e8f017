import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../../harness/databases.js";
import { openStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/types.js";

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
    expect(await first.migrate()).toEqual(["0001_initial"]);
    expect(await first.migrate()).toEqual([]);
    const second = await open();
    expect(await second.migrate()).toEqual([]);
  });

  it("creates the built-in free plan: 1000 requests per 30 days", async () => {
    const store = await open();
    await store.migrate();
    expect(await store.plans.listPlans()).toEqual([{ name: "free", quota: 1000, periodDays: 30 }]);
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

  it("answers ping once open", async () => {
    const store = await open();
    await expect(store.ping()).resolves.toBeUndefined();
  });

  // Several PostgreSQL instances start at once; Kysely's advisory lock lets one migrate.
  // (Two SQLite instances in one process cannot: better-sqlite3 blocks the thread.)
  it.runIf(kind === "postgres")("lets instances starting together migrate exactly once", async () => {
    const stores = await Promise.all([open(), open(), open()]);
    const applied = await Promise.all(stores.map((store) => store.migrate()));
    expect(applied.flat()).toEqual(["0001_initial"]);
  });
});
