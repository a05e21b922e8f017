/**
 * The server's SQLite connection leaves checkpoints to a thread of its own
 * (docs/deploy.md "Sizing"): its commits only append to the write-ahead log, which the
 * thread copies into the database every few milliseconds, so the log stays a few
 * megabytes; without the thread the connection would let it grow to its backstop
 * (10,000 pages) before checkpointing in a commit.
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

  it("keeps the write-ahead log small while 24 MB are committed, and stops with the connection", async () => {
    const { location } = database;
    if (location.dialect !== "sqlite") throw new Error("a SQLite database");
    const db = await openDatabase(location, () => {}, { checkpointInBackground: true });
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(rows[0]?.wal_autocheckpoint).toBe(10_000);
    await sql`create table t (id integer primary key, text text not null)`.execute(db);
    const text = "x".repeat(400_000);
    let largest = 0;
    for (let i = 0; i < 60; i++) {
      await sql`insert into t (text) values (${text + i})`.execute(db);
      // A few milliseconds between commits, as a job's batches come.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const { size } = await stat(`${location.path}-wal`);
      largest = Math.max(largest, size);
    }
    expect(largest).toBeLessThan(8 * 1024 * 1024);
    await db.destroy();
  });
});
