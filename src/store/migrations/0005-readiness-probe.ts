/**
 * A one-row table that `/readyz` writes to (src/store/kysely-store.ts): a readiness
 * probe that only reads answers "ready" while the database refuses every write (a
 * SQLite file another process holds locked, or that cannot be written).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("readiness_probe")
    .addColumn("id", "integer", (col) => col.primaryKey())
    .addColumn("probed_at", "bigint", (col) => col.notNull())
    .execute();
}
