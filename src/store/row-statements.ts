/**
 * Multi-row write statements compiled once (the records' saves, the learning evidence):
 * they run for every domain looked up, and building and compiling them with Kysely's
 * query builder cost more than the database's insert itself. Rows are written in
 * statements of a few sizes (STATEMENT_ROWS), so that a database holds few distinct SQL
 * texts (SQLite's statement cache, database.ts), each compiled once per database, shape
 * and size. A statement is compiled with each value's row and column in its place
 * (`2:domain`), which say where each value goes: the placeholders' order comes from the
 * compiler, never restated here.
 */
import { type Compilable, CompiledQuery, type Kysely } from "kysely";
import type { Database } from "./schema.js";

/** Rows of one statement: a batch is written as statements of these sizes, largest first. */
export const STATEMENT_ROWS: readonly number[] = [32, 16, 8, 4, 2, 1];

/** `rows` cut into statements of STATEMENT_ROWS sizes, in order. */
export function chunked<Row>(rows: readonly Row[]): Row[][] {
  const chunks: Row[][] = [];
  let at = 0;
  for (const size of STATEMENT_ROWS) {
    while (rows.length - at >= size) {
      chunks.push(rows.slice(at, at + size));
      at += size;
    }
  }
  return chunks;
}

/**
 * The order rows are written in wherever several instances write the same rows at once:
 * the same order everywhere, so that no two transactions wait for each other in a circle.
 */
export function lockOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A statement of some rows: its SQL, and for each parameter the row and the column whose value it takes. */
interface CompiledRows<Row> {
  sql: string;
  parameters: { row: number; column: keyof Row }[];
}

/** A shape of statement: its columns, and how it is built from rows of named values. */
export interface RowStatement<Row> {
  columns: readonly (keyof Row & string)[];
  build(db: Kysely<Database>, rows: Record<string, string>[]): Compilable;
}

const compiled = new WeakMap<Kysely<Database>, Map<RowStatement<never>, Map<number, CompiledRows<never>>>>();

function compiledRows<Row>(db: Kysely<Database>, shape: RowStatement<Row>, rows: number): CompiledRows<Row> {
  let shapes = compiled.get(db);
  if (!shapes) {
    shapes = new Map();
    compiled.set(db, shapes);
  }
  let sizes = shapes.get(shape as RowStatement<never>) as Map<number, CompiledRows<Row>> | undefined;
  if (!sizes) {
    sizes = new Map();
    shapes.set(shape as RowStatement<never>, sizes as Map<number, CompiledRows<never>>);
  }
  let statement = sizes.get(rows);
  if (!statement) {
    const named = Array.from({ length: rows }, (_, row) =>
      Object.fromEntries(shape.columns.map((column) => [column, `${row}:${column}`])),
    );
    const query = shape.build(db, named).compile();
    statement = {
      sql: query.sql,
      parameters: query.parameters.map((parameter) => {
        const [, row, column] = /^(\d+):(.+)$/.exec(String(parameter)) ?? [];
        // Any other value in the statement would be sent as its compile-time placeholder.
        if (row === undefined || column === undefined)
          throw new Error(`a row statement takes its rows' values only, not ${String(parameter)}`);
        return { row: Number(row), column: column as keyof Row };
      }),
    };
    sizes.set(rows, statement);
  }
  return statement;
}

/** Writes `rows` with `executor` (the database, or a transaction of it), a statement per chunk, in order; the rows the statements give back. */
async function writeRows<Row, Returned>(
  db: Kysely<Database>,
  executor: Kysely<Database>,
  shape: RowStatement<Row>,
  rows: readonly Row[],
): Promise<Returned[]> {
  const returned: Returned[] = [];
  for (const chunk of chunked(rows)) {
    const { sql, parameters } = compiledRows(db, shape, chunk.length);
    const query = CompiledQuery.raw(
      sql,
      parameters.map(({ row, column }) => (chunk[row] as Row)[column]),
    );
    const result = await executor.executeQuery<Returned>(query);
    returned.push(...result.rows);
  }
  return returned;
}

/**
 * Writes `rounds` of rows, in order, a statement per chunk of each: in one transaction
 * when they take more than one statement, and again when PostgreSQL rolled them back as
 * a deadlock's victim; for each round, the rows its statements gave back.
 */
export function writeRounds<Row, Returned>(
  db: Kysely<Database>,
  shape: RowStatement<Row>,
  rounds: readonly (readonly Row[])[],
): Promise<Returned[][]> {
  const run = async (executor: Kysely<Database>) => {
    const returned: Returned[][] = [];
    for (const round of rounds) returned.push(await writeRows<Row, Returned>(db, executor, shape, round));
    return returned;
  };
  const several = rounds.length > 1 || takesSeveralStatements(rounds[0]?.length ?? 0);
  return retriedOnDeadlock(() => (several ? db.transaction().execute(run) : run(db)));
}

/** Whether writing `rows` rows takes more than one statement (then a caller wants them in a transaction). */
export function takesSeveralStatements(rows: number): boolean {
  return rows > 0 && !STATEMENT_ROWS.includes(rows);
}

/** PostgreSQL's code for a transaction it rolled back to end a deadlock (two transactions waiting for each other). */
const DEADLOCK_DETECTED = "40P01";
/** Tries of a write that PostgreSQL rolled back as a deadlock's victim. */
export const DEADLOCK_TRIES = 3;

/**
 * Runs `write` again when PostgreSQL rolled it back to end a deadlock, up to DEADLOCK_TRIES
 * times: a multi-row write locks its rows one after another, and another statement may
 * lock the same rows in another order (PostgreSQL's own order of an `in` list, say). The
 * victim's transaction (or lone statement) was rolled back whole, so the write runs again
 * from nothing: an upsert that counts (the evidence's `seen + 1`) still counts once.
 */
export async function retriedOnDeadlock<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= DEADLOCK_TRIES || (error as { code?: unknown }).code !== DEADLOCK_DETECTED) throw error;
    }
  }
}
