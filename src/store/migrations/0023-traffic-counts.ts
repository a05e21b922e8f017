/**
 * The service's traffic per UTC day (docs/console.md "Traffic"): counters every instance
 * adds to (additive upserts of what it counted in memory), never a scan of the records.
 * One row per day, kind and name: `surface` (api, bulk, jobs, pages: checks), `block`
 * (a blocking verdict's reason), `provider` (a disposable provider seen) and `domain`
 * (a blocked domain). Housekeeping drops days older than the charts show, with a margin.
 * The requests per key and day (`daily_usage`) are read by day for the busiest keys.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("traffic_counts")
    /** The UTC day's start, in ms. */
    .addColumn("day", "bigint", (col) => col.notNull())
    .addColumn("kind", "text", (col) => col.notNull())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("count", "bigint", (col) => col.notNull())
    .addPrimaryKeyConstraint("traffic_counts_pk", ["day", "kind", "name"])
    .execute();
  await db.schema.createIndex("daily_usage_by_day").on("daily_usage").columns(["day"]).execute();
}
