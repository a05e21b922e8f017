/** Plans, keys, usage per key and period, domain records, recently checked domains; the `free` plan. */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("plans")
    .addColumn("name", "text", (col) => col.primaryKey())
    .addColumn("quota", "integer", (col) => col.notNull())
    .addColumn("period_days", "integer", (col) => col.notNull())
    .addColumn("created_at", "bigint", (col) => col.notNull())
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("prefix", "text", (col) => col.notNull())
    .addColumn("hash", "text", (col) => col.notNull().unique())
    .addColumn("name", "text")
    .addColumn("plan", "text", (col) => col.notNull().references("plans.name"))
    .addColumn("created_at", "bigint", (col) => col.notNull())
    .addColumn("revoked_at", "bigint")
    .execute();

  await db.schema
    .createTable("usage")
    .addColumn("key_id", "text", (col) => col.notNull().references("api_keys.id").onDelete("cascade"))
    .addColumn("period_start", "bigint", (col) => col.notNull())
    .addColumn("used", "integer", (col) => col.notNull())
    .addPrimaryKeyConstraint("usage_pk", ["key_id", "period_start"])
    .execute();

  await db.schema
    .createTable("records")
    .addColumn("domain", "text", (col) => col.primaryKey())
    .addColumn("record", "text", (col) => col.notNull())
    .addColumn("block", "integer", (col) => col.notNull())
    .addColumn("checked_at", "bigint", (col) => col.notNull())
    .addColumn("block_status_changed_at", "bigint", (col) => col.notNull())
    .execute();

  await db.schema
    .createTable("recent")
    .addColumn("domain", "text", (col) => col.primaryKey())
    .addColumn("checked_at", "bigint", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("recent_checked_at").on("recent").column("checked_at").execute();

  await sql`insert into plans (name, quota, period_days, created_at) values ('free', 1000, 30, ${Date.now()})`.execute(
    db,
  );
}
