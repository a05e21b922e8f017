/**
 * Multi-row statements in few sizes (src/store/row-statements.ts): rows cut into
 * statements of STATEMENT_ROWS sizes, largest first, in order, which counts take more
 * than one statement (a transaction then), a statement holding a value of its own
 * refused when it is compiled (it would be sent its placeholder), and a write that
 * PostgreSQL rolled back as a deadlock's victim run again, a few times at most.
 */
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import {
  chunked,
  DEADLOCK_TRIES,
  type RowStatement,
  retriedOnDeadlock,
  STATEMENT_ROWS,
  takesSeveralStatements,
  writeRounds,
} from "../../src/store/row-statements.js";
import type { Database } from "../../src/store/schema.js";

describe("chunked", () => {
  it("cuts rows into statements of the few sizes, largest first, keeping their order", () => {
    const rows = Array.from({ length: 45 }, (_, i) => i);
    const chunks = chunked(rows);
    expect(chunks.map((chunk) => chunk.length)).toEqual([32, 8, 4, 1]);
    expect(chunks.flat()).toEqual(rows);
    expect(chunked(Array.from({ length: 100 }, (_, i) => i)).map((chunk) => chunk.length)).toEqual([
      32, 32, 32, 4,
    ]);
    expect(chunked([])).toEqual([]);
    for (let n = 1; n <= 200; n++) {
      const sizes = chunked(Array.from({ length: n }, (_, i) => i)).map((chunk) => chunk.length);
      expect(sizes.every((size) => STATEMENT_ROWS.includes(size))).toBe(true);
      expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(n);
    }
  });
});

describe("takesSeveralStatements", () => {
  it("is true exactly when the rows take more than one statement", () => {
    for (let n = 0; n <= 100; n++) {
      expect(takesSeveralStatements(n)).toBe(chunked(Array.from({ length: n }, (_, i) => i)).length > 1);
    }
  });
});

describe("writeRounds", () => {
  it("refuses a statement with a value that is not one of its rows'", async () => {
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(":memory:") }) });
    const withOwnValue: RowStatement<{ domain: string }> = {
      columns: ["domain"],
      build: (kysely, rows) =>
        kysely
          .insertInto("recent")
          .values(rows as never)
          .onConflict((oc) => oc.column("domain").doUpdateSet({ checked_at: 5 } as never)),
    };
    await expect(writeRounds(db, withOwnValue, [[{ domain: "a.test" }]])).rejects.toThrow(
      "a row statement takes its rows' values only, not 5",
    );
    await db.destroy();
  });
});

describe("retriedOnDeadlock", () => {
  const deadlock = Object.assign(new Error("deadlock detected"), { code: "40P01" });

  it("runs a write again while PostgreSQL rolls it back as a deadlock's victim, up to DEADLOCK_TRIES", async () => {
    let tries = 0;
    const twice = () => {
      tries++;
      return tries < DEADLOCK_TRIES ? Promise.reject(deadlock) : Promise.resolve("written");
    };
    expect(await retriedOnDeadlock(twice)).toBe("written");
    expect(tries).toBe(DEADLOCK_TRIES);
    tries = 0;
    const always = () => {
      tries++;
      return Promise.reject(deadlock);
    };
    await expect(retriedOnDeadlock(always)).rejects.toBe(deadlock);
    expect(tries).toBe(DEADLOCK_TRIES);
  });

  it("passes any other error on at once", async () => {
    let tries = 0;
    const down = Object.assign(new Error("connection refused"), { code: "ECONNREFUSED" });
    const refused = () => {
      tries++;
      return Promise.reject(down);
    };
    await expect(retriedOnDeadlock(refused)).rejects.toBe(down);
    expect(tries).toBe(1);
  });
});
