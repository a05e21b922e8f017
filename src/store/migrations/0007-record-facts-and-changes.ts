/**
 * Records hold facts, not verdicts: what DNS and the registries said (`facts`, JSON of
 * src/core/check.ts `DomainFacts`); the verdict is decided when answering. A row saved
 * before holds a whole record in that column instead, which the store reads as no facts:
 * the domain is looked up again, and its `block` and `block_status_changed_at` are kept.
 *
 * `changes`: one counter per kind of change (keys, overrides, records, …), raised by
 * every change from any process; every server polls it to drop what it remembers.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("records").renameColumn("record", "facts").execute();
  await db.schema.alterTable("records").dropColumn("status").execute();
  await db.schema.alterTable("records").dropColumn("heaviest").execute();
  await db.schema
    .createTable("changes")
    .addColumn("topic", "text", (col) => col.primaryKey())
    .addColumn("version", "bigint", (col) => col.notNull())
    .execute();
}
