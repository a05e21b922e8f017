/**
 * List jobs that ride out faults and pause (docs/jobs.md "Faults" and "Suspension"): a
 * job remembers since when its batches have failed without one success (null while they
 * succeed), so any instance can tell a blip from an outage; `paused` is a new status (the
 * column is text), the one a suspended account's jobs wait in.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").addColumn("failing_since", "bigint").execute();
}
