/**
 * An account's own allow and block list (docs/accounts.md "The account's list"): the
 * domains it wants always blocked or always allowed for its own keys, and one version
 * per account's list, raised by every change, so a server reloads only the lists that
 * changed.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("account_lists")
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id").onDelete("cascade"))
    /** A normalised domain: the entry holds for it and, for a registrable domain, its subdomains. */
    .addColumn("domain", "text", (col) => col.notNull())
    /** `block` or `allow`. */
    .addColumn("action", "text", (col) => col.notNull())
    .addColumn("created_at", "bigint", (col) => col.notNull())
    .addPrimaryKeyConstraint("account_lists_pk", ["account_id", "domain"])
    .execute();
  await db.schema
    .createTable("account_list_versions")
    .addColumn("account_id", "text", (col) => col.primaryKey().references("accounts.id").onDelete("cascade"))
    /** Raised by every change of the account's list; its row is taken first, so changes of one list take turns. */
    .addColumn("version", "integer", (col) => col.notNull())
    .execute();
}
