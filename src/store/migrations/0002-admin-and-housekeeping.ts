/**
 * The built-in `unlimited` plan and the indexes housekeeping prunes by.
 *
 * `plans.quota` becomes nullable, null meaning unlimited (docs/api.md "Keys, plans, quotas"): a new column,
 * the values copied, the old one dropped and the new one renamed. These statements are
 * the same on both dialects (SQLite drops columns since 3.35), so no table is rebuilt
 * and no foreign key of `api_keys` is touched. An operator's own plan already named
 * `unlimited` is kept as it is.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("plans").addColumn("quota_or_null", "integer").execute();
  await sql`update plans set quota_or_null = quota`.execute(db);
  await db.schema.alterTable("plans").dropColumn("quota").execute();
  await db.schema.alterTable("plans").renameColumn("quota_or_null", "quota").execute();

  await sql`insert into plans (name, quota, period_days, created_at) values ('unlimited', null, 30, ${Date.now()})
    on conflict (name) do nothing`.execute(db);

  // Housekeeping deletes by age (src/service/housekeeping-schedule.ts): records by checked_at, usage by period_start.
  await db.schema.createIndex("records_checked_at").on("records").column("checked_at").execute();
  await db.schema.createIndex("usage_period_start").on("usage").column("period_start").execute();
}
