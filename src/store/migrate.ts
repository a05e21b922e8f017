/** Applies the migrations in `migrations/` (docs/api.md "Storage and caching": one schema, applied on start). */
import { type Kysely, Migrator, sql } from "kysely";
import { migrations } from "./migrations/index.js";
import type { Database } from "./schema.js";

async function runMigrator(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? [])
    .filter((result) => result.status === "Success")
    .map((result) => result.migrationName);
}

/**
 * Brings the schema up to date and returns the names of the migrations applied now.
 * Where the adapter supports transactional DDL (PostgreSQL), Kysely runs the migrations
 * in one transaction under an advisory lock. Where it does not (Kysely's SQLite adapter,
 * although SQLite itself can), the migrations run inside one write transaction taken
 * here, so a failed migration leaves nothing behind and a second process starting at
 * the same time waits for the first instead of migrating twice.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  if (db.getExecutor().adapter.supportsTransactionalDdl) return runMigrator(db);
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const applied = await runMigrator(connection);
      await sql`commit`.execute(connection);
      return applied;
    } catch (error) {
      await sql`rollback`.execute(connection);
      throw error;
    }
  });
}
