/**
 * The change signal (docs/api.md, "Storage and caching"): one counter per kind of change,
 * raised by the store itself in the transaction of every change of that kind, from the
 * admin API, the CLI or another instance alike: a change and its signal commit together
 * or not at all. Servers poll the counters (src/service/checking/change-watcher.ts) and drop what
 * they remember of that kind.
 */
import { type Kysely, sql } from "kysely";
import type { ChangesRepository, ChangeTopic } from "./changes-types.js";
import { toMillis } from "./columns.js";
import type { Database } from "./schema.js";

async function raise(db: Kysely<Database>, topic: ChangeTopic): Promise<void> {
  await db
    .insertInto("changes")
    .values({ topic, version: 1 })
    .onConflict((oc) => oc.column("topic").doUpdateSet({ version: sql`changes.version + 1` }))
    .execute();
}

/** Plain SQL: it runs twice a second in every server. */
async function versions(db: Kysely<Database>): Promise<Map<string, number>> {
  const { rows } = await sql<{ topic: string; version: number | string }>`
    select topic, version from changes`.execute(db);
  return new Map(rows.map((row) => [row.topic, toMillis(row.version)]));
}

export function createChangesRepository(db: Kysely<Database>): ChangesRepository {
  return { versions: () => versions(db) };
}

/** Runs `work` in a transaction of its own, or in the one `db` already is (a raising method's). */
export function inTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/** Whether a change method's result says something changed: `false` (nothing removed) and `0` (nothing purged) do not. */
function changedSomething(result: unknown): boolean {
  return result !== false && result !== 0;
}

/**
 * The repository `create` makes over `db`, with each of `methods` run in one transaction
 * that also raises `topic` when the call changed something.
 */
export function raisingWithChange<R extends object, K extends keyof R>(
  db: Kysely<Database>,
  create: (db: Kysely<Database>) => R,
  methods: readonly K[],
  topic: ChangeTopic,
): R {
  const repository = create(db);
  for (const name of methods) {
    repository[name] = ((...args: unknown[]) =>
      inTransaction(db, async (trx) => {
        const method = create(trx)[name] as (...args: unknown[]) => Promise<unknown>;
        const result = await method(...args);
        if (changedSomething(result)) await raise(trx, topic);
        return result;
      })) as R[K];
  }
  return repository;
}
