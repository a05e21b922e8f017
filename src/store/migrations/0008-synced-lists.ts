/**
 * Upstream disposable lists synced while the service runs (docs/data.md, "Synced lists"):
 * each source's accepted versions (the one in force and the one before it, for rollback)
 * with every entry and when the source first listed it; each source's last attempt; and
 * named locks, so that one instance fetches for all.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("list_versions")
    .addColumn("source", "text", (col) => col.notNull())
    /** `current` (in force) or `previous` (what a rollback returns to). */
    .addColumn("state", "text", (col) => col.notNull())
    .addColumn("hash", "text", (col) => col.notNull())
    /** `domain<TAB>first listed (epoch ms)` lines, sorted. */
    .addColumn("entries", "text", (col) => col.notNull())
    .addColumn("entry_count", "integer", (col) => col.notNull())
    .addColumn("url", "text", (col) => col.notNull())
    .addColumn("accepted_at", "bigint", (col) => col.notNull())
    .addPrimaryKeyConstraint("list_versions_pk", ["source", "state"])
    .execute();
  await db.schema
    .createTable("list_sources")
    .addColumn("source", "text", (col) => col.primaryKey())
    .addColumn("url", "text", (col) => col.notNull())
    .addColumn("last_attempt", "bigint", (col) => col.notNull())
    .addColumn("last_success", "bigint")
    .addColumn("last_error", "text")
    .execute();
  await db.schema
    .createTable("locks")
    .addColumn("name", "text", (col) => col.primaryKey())
    .addColumn("holder", "text", (col) => col.notNull())
    .addColumn("expires_at", "bigint", (col) => col.notNull())
    .execute();
}
