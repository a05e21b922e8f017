/**
 * The audit log (docs/console.md "The audit log"): one row per change an operator made,
 * through the CLI, the admin API or the console. Rows are kept; nothing prunes them.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("audit_log")
    /** Sorts as `at` does: the time in base 36, then a random part. */
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("at", "bigint", (col) => col.notNull())
    /** `cli`, `admin-token` or an account's email. */
    .addColumn("actor", "text", (col) => col.notNull())
    .addColumn("action", "text", (col) => col.notNull())
    .addColumn("entity_kind", "text", (col) => col.notNull())
    .addColumn("entity_id", "text")
    /** A JSON object; never a secret. */
    .addColumn("detail", "text", (col) => col.notNull())
    .execute();
  // Searches by one of them, newest first.
  await db.schema.createIndex("audit_log_actor").on("audit_log").columns(["actor", "id"]).execute();
  await db.schema.createIndex("audit_log_action").on("audit_log").columns(["action", "id"]).execute();
  await db.schema
    .createIndex("audit_log_entity")
    .on("audit_log")
    .columns(["entity_kind", "entity_id", "id"])
    .execute();
}
