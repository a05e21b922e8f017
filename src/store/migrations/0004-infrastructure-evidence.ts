/**
 * Learning disposable infrastructure from traffic (docs/verdicts.md, "Learned
 * infrastructure"): one row per piece of mail infrastructure (MX host, MX address, name
 * server) and domain seen on it, with the domain's listed status; and the operator's
 * overrides (a domain allowed or denied, infrastructure never disposable).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("infrastructure_evidence")
    .addColumn("kind", "text", (col) => col.notNull())
    .addColumn("value", "text", (col) => col.notNull())
    .addColumn("domain", "text", (col) => col.notNull())
    .addColumn("listed", "text", (col) => col.notNull())
    .addColumn("service", "text")
    .addColumn("seen", "integer", (col) => col.notNull())
    .addColumn("first_seen", "bigint", (col) => col.notNull())
    .addColumn("last_seen", "bigint", (col) => col.notNull())
    .addPrimaryKeyConstraint("infrastructure_evidence_pk", ["kind", "value", "domain"])
    .execute();
  // The learning query starts from the listed-disposable rows only (src/store/infrastructure-repository.ts).
  await db.schema
    .createIndex("infrastructure_evidence_listed")
    .on("infrastructure_evidence")
    .columns(["listed", "kind", "value"])
    .execute();

  await db.schema
    .createTable("overrides")
    .addColumn("kind", "text", (col) => col.notNull())
    .addColumn("value", "text", (col) => col.notNull())
    .addColumn("action", "text", (col) => col.notNull())
    .addColumn("note", "text")
    .addColumn("created_at", "bigint", (col) => col.notNull())
    .addPrimaryKeyConstraint("overrides_pk", ["kind", "value"])
    .execute();
}
