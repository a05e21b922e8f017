/**
 * An account's own units per UTC day (docs/jobs.md "In the console"): a console upload is
 * counted on the account, on no key, so its units have no row in `daily_usage` (keyed by
 * key); the account's chart adds these to its keys' days, so a period's days add up to
 * the account's count. Gone with the account.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("account_daily_usage")
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("day", "bigint", (col) => col.notNull())
    .addColumn("used", "integer", (col) => col.notNull())
    .addPrimaryKeyConstraint("account_daily_usage_pk", ["account_id", "day"])
    .execute();
}
