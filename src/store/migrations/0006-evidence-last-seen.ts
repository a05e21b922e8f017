/**
 * Housekeeping prunes evidence no fresh look-up has seen for EVIDENCE_RETENTION_DAYS
 * (src/service/housekeeping-schedule.ts): the index lets each batch find its rows by age instead of
 * scanning the table, which grows with every distinct domain checked.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("infrastructure_evidence_last_seen")
    .on("infrastructure_evidence")
    .column("last_seen")
    .execute();
}
