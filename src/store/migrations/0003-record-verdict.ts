/**
 * What a check said beside its record: the verdict status and, for a record decided by
 * soft signals, the key of the heaviest one. The record cache reads them instead of
 * parsing the human-readable `reason`. Rows saved before have neither; the cache treats
 * them as missing and checks again.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("records").addColumn("status", "text").execute();
  await db.schema.alterTable("records").addColumn("heaviest", "text").execute();
}
