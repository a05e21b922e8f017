/**
 * List jobs (docs/jobs.md): a job per upload, owned by the key that created it, and one
 * row per input line, claimed in batches by every instance and answered in place.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (col) => col.primaryKey())
    /** The key that created the job: its owner. */
    .addColumn("key_id", "text", (col) => col.notNull())
    /** `uploading` (not yet shown), `queued`, `running`, `done`, `failed` or `cancelled`. */
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("items", "integer", (col) => col.notNull())
    .addColumn("done", "integer", (col) => col.notNull())
    .addColumn("allow_count", "integer", (col) => col.notNull())
    .addColumn("block_count", "integer", (col) => col.notNull())
    .addColumn("invalid_count", "integer", (col) => col.notNull())
    .addColumn("unknown_count", "integer", (col) => col.notNull())
    /** The quota period the items were counted in (a cancelled job's rest goes back to it). */
    .addColumn("period_start", "bigint", (col) => col.notNull())
    /** JSON: the uploaded CSV's header and layout; for a text upload, one `input` column. */
    .addColumn("header", "text", (col) => col.notNull())
    .addColumn("layout", "text", (col) => col.notNull())
    .addColumn("created_at", "bigint", (col) => col.notNull())
    .addColumn("started_at", "bigint")
    .addColumn("finished_at", "bigint")
    .addColumn("expires_at", "bigint")
    /** When a batch of the job was last claimed: owners take turns by it. */
    .addColumn("served_at", "bigint", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("jobs_by_key").on("jobs").columns(["key_id", "created_at"]).execute();
  await db.schema
    .createTable("job_items")
    .addColumn("job_id", "text", (col) => col.notNull())
    .addColumn("seq", "integer", (col) => col.notNull())
    /** The input checked: the address cell, or the line of a text upload. */
    .addColumn("input", "text", (col) => col.notNull())
    /** JSON: the row's cells and its line, as the cleaned CSV writes them. */
    .addColumn("row", "text", (col) => col.notNull())
    .addColumn("claimed_by", "text")
    .addColumn("claimed_until", "bigint")
    /** The outcome's JSON (`input`, then the record or the problem); null while pending. */
    .addColumn("result", "text")
    /** `allow`, `block` or `invalid` (what `only=` keeps). */
    .addColumn("verdict", "text")
    .addPrimaryKeyConstraint("job_items_pk", ["job_id", "seq"])
    .execute();
  await db.schema
    .createIndex("job_items_pending")
    .on("job_items")
    .columns(["job_id", "seq"])
    .where(sql.ref("result"), "is", null)
    .execute();
}
