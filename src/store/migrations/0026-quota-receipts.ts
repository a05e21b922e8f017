/**
 * A receipt per counting statement on PostgreSQL (src/store/quota-receipts.ts, docs/http.md
 * "When the database dies mid-request"): written by the statement that counts, so that a
 * count whose answer was lost with its connection can be told landed or not, and given
 * back exactly once. `token` begins with the time it was made (pruned by that, through
 * the primary key); `units` is what the statement counted (0: a token cancelled before
 * any count of it landed); `cancelled` 1 once its units were given back. SQLite, whose
 * statements never end without the caller knowing, keeps the table empty.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("quota_receipts")
    .addColumn("token", "text", (col) => col.primaryKey())
    .addColumn("units", "integer", (col) => col.notNull())
    .addColumn("cancelled", "integer", (col) => col.notNull().defaultTo(0))
    .execute();
}
