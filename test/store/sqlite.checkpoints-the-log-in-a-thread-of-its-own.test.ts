/**
 * The server's SQLite connection leaves checkpoints to a thread of its own
 * (docs/deploy.md "Sizing"): its commits only append to the write-ahead log, and the
 * thread, woken by the connection once a few hundred KiB were written, copies them into
 * the database, so the log stays a few megabytes; without the thread the connection
 * would let it grow to its backstop (10,000 pages) before checkpointing in a commit.
 * Smaller writes are checkpointed within a second.
 *
 * @room apart: the thread must keep pace with commits 5 ms apart, which a loaded machine
 * does not promise (test/projects.ts).
 */
import { stat } from "node:fs/promises";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { openDatabase } from "../../src/store/database.js";

describe("SQLite with checkpointInBackground", () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase("sqlite");
  });
  afterEach(async () => {
    await database.drop();
  });

  const open = async () => {
    const { location } = database;
    if (location.dialect !== "sqlite") throw new Error("a SQLite database");
    const db = await openDatabase(location, () => {}, { checkpointInBackground: true });
    // Once the thread runs, the connection checkpoints itself only at its backstop.
    await expect
      .poll(
        async () =>
          (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows[0],
      )
      .toEqual({ wal_autocheckpoint: 10_000 });
    return { db, wal: async () => (await stat(`${location.path}-wal`)).size };
  };

  it("keeps the write-ahead log small while 24 MB are committed, and stops with the connection", async () => {
    const { db, wal } = await open();
    await sql`create table t (id integer primary key, text text not null)`.execute(db);
    const text = "x".repeat(400_000);
    let largest = 0;
    for (let i = 0; i < 60; i++) {
      await sql`insert into t (text) values (${text + i})`.execute(db);
      // A few milliseconds between commits, as a job's batches come.
      await new Promise((resolve) => setTimeout(resolve, 5));
      largest = Math.max(largest, await wal());
    }
    expect(largest).toBeLessThan(8 * 1024 * 1024);
    await db.destroy();
  });

  it("checkpoints a few small writes within a second, so that the next write starts the log again", async () => {
    const { db, wal } = await open();
    await sql`create table t (id integer primary key, text text not null)`.execute(db);
    await sql`insert into t (text) values ('one')`.execute(db);
    const written = await wal();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await sql`insert into t (text) values ('two')`.execute(db);
    // Not checkpointed, the second write would have been appended to the first.
    expect(await wal()).toBe(written);
    await db.destroy();
  });
});
