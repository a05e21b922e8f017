/**
 * A list job remembers the name of the file it was uploaded as (docs/jobs.md "The API"):
 * listed with the job, and the results' download is named after it
 * (`contacts.csv` → `contacts.checked.csv`). Null for an upload that named no file.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").addColumn("filename", "text").execute();
}
