/**
 * Reports of wrong answers (docs/api.md "Reports of wrong answers"): one row per report a key filed, with
 * the operator's review. Only the domain is kept, never an address.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("reports")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("key_id", "text", (col) => col.notNull().references("api_keys.id"))
    .addColumn("domain", "text", (col) => col.notNull())
    .addColumn("expected", "text", (col) => col.notNull())
    .addColumn("note", "text")
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("filed_at", "bigint", (col) => col.notNull())
    .addColumn("reviewed_at", "bigint")
    .addColumn("review_note", "text")
    .execute();
  // The daily limit counts a key's reports of the last 24 hours.
  await db.schema.createIndex("reports_key_filed").on("reports").columns(["key_id", "filed_at"]).execute();
  // One open report per key and domain, whatever races between instances.
  await db.schema
    .createIndex("reports_open_per_key")
    .unique()
    .on("reports")
    .columns(["key_id", "domain"])
    .where(sql.ref("status"), "=", sql.lit("open"))
    .execute();
  // The operator's queue: reports by status, and the reporters of a domain.
  await db.schema.createIndex("reports_status_domain").on("reports").columns(["status", "domain"]).execute();
}
