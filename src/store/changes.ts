/**
 * The change signal (docs/api.md §10): one counter per kind of change, raised by the
 * store itself after every change of that kind, from the admin API, the CLI or another
 * instance alike. Servers poll the counters (src/service/change-watcher.ts) and drop
 * what they remember of that kind.
 */
import { type Kysely, sql } from "kysely";
import { type Database, toMillis } from "./schema.js";
import type { ChangesRepository, ChangeTopic } from "./types.js";

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
  return { raise: (topic) => raise(db, topic), versions: () => versions(db) };
}

/** Whether a change method's result says something changed: `false` (nothing removed) and `0` (nothing purged) do not. */
function changedSomething(result: unknown): boolean {
  return result !== false && result !== 0;
}

/** The repository with `methods` raising `topic` after each call that changed something. */
export function raisingAfter<R extends object, K extends keyof R>(
  repository: R,
  methods: readonly K[],
  topic: ChangeTopic,
  changes: Pick<ChangesRepository, "raise">,
): R {
  const wrapped = { ...repository };
  for (const name of methods) {
    const method = repository[name] as (...args: unknown[]) => Promise<unknown>;
    wrapped[name] = (async (...args: unknown[]) => {
      const result = await method.apply(repository, args);
      if (changedSomething(result)) await changes.raise(topic);
      return result;
    }) as R[K];
  }
  return wrapped;
}
