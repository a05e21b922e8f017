/**
 * The list policy (docs/data.md, "Synced lists"): which synced sources are in force, one
 * row for every process, set by the instance that syncs (its LIST_SOURCES) or
 * `mailrisk lists update`. Until a sync sets it, each process keeps its own LIST_SOURCES.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("list_policy")
    /** Always 1: there is one policy. */
    .addColumn("id", "integer", (col) => col.primaryKey())
    /** The names of the sources in force, one a line, sorted; empty for none. */
    .addColumn("sources", "text", (col) => col.notNull())
    .addColumn("set_at", "bigint", (col) => col.notNull())
    .execute();
}
