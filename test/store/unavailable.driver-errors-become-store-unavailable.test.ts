import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { UnknownPlanError } from "../../src/core/refusals.js";
import type { Store } from "../../src/store/index.js";
import { openStore, StoreUnavailableError } from "../../src/store/index.js";
import { toStoreError } from "../../src/store/unavailable.js";

const NOW = new Date("2024-03-02T10:00:00.000Z");

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-unavailable-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function causeOf(error: unknown): unknown {
  expect(error).toBeInstanceOf(StoreUnavailableError);
  return (error as Error).cause;
}

describe("on PostgreSQL", () => {
  it("raises StoreUnavailableError with the driver's error as cause when the server refuses connections", async () => {
    const store = await openStore({
      dialect: "postgres",
      connectionString: "postgres://postgres@127.0.0.1:1/none",
    });
    cleanups.push(() => store.close());
    for (const call of [
      () => store.ping(),
      () => store.migrate(),
      () => store.usage.authorize("mr_x", NOW),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(causeOf(error)).toMatchObject({ code: "ECONNREFUSED" });
    }
  });

  it("hands a pooled connection that breaks while idle to onIdleError instead of crashing or swallowing it", async () => {
    const database: TestDatabase = await createTestDatabase("postgres");
    cleanups.push(() => database.drop());
    const idleErrors: Error[] = [];
    const store: Store = await openStore(database.location, {
      onIdleError: (error) => idleErrors.push(error),
    });
    cleanups.push(() => store.close());
    await store.migrate();
    const admin = new pg.Client({
      connectionString: (database.location as { connectionString: string }).connectionString,
    });
    await admin.connect();
    cleanups.push(() => admin.end());
    await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
    );
    await expect.poll(() => idleErrors.length).toBeGreaterThan(0);
    // The pool replaces the broken connection: the store works again.
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

describe("on SQLite", () => {
  it("raises StoreUnavailableError when the database file cannot be opened", async () => {
    const dir = await tempDir();
    const error = await openStore({ dialect: "sqlite", path: dir }).catch((caught: unknown) => caught);
    expect(causeOf(error)).toMatchObject({ code: "SQLITE_CANTOPEN" });
  });

  it("classifies a locked database (SQLITE_BUSY) as unavailable", async () => {
    const path = join(await tempDir(), "locked.db");
    const holder = new SQLite(path);
    cleanups.push(async () => holder.close());
    holder.exec("create table t (x integer); begin exclusive; insert into t values (1)");
    const waiter = new SQLite(path, { timeout: 0 });
    cleanups.push(async () => waiter.close());
    let busy: unknown;
    try {
      waiter.exec("insert into t values (2)");
    } catch (error) {
      busy = error;
    }
    expect(busy).toMatchObject({ code: "SQLITE_BUSY" });
    expect(causeOf(toStoreError(busy))).toBe(busy);
  });
});

describe("errors that are not about reaching the database", () => {
  it("pass through unchanged", async () => {
    const store = await openStore({ dialect: "sqlite", path: ":memory:" });
    cleanups.push(() => store.close());
    await store.migrate();
    await expect(store.keys.createKey({ plan: "gold", now: NOW })).rejects.toBeInstanceOf(UnknownPlanError);
    for (const error of [
      new TypeError("x is undefined"),
      Object.assign(new Error("dup"), { code: "23505" }),
    ]) {
      expect(toStoreError(error)).toBe(error);
    }
  });
});
