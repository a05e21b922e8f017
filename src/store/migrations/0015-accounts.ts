/**
 * Accounts (docs/accounts.md): people who log in, own keys and share one quota count;
 * their sessions, their one-time codes and links, the usage counted per account, and
 * requests per key and day.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("accounts")
    .addColumn("id", "text", (col) => col.primaryKey())
    /** Lower-case; the login. */
    .addColumn("email", "text", (col) => col.notNull().unique())
    /** argon2id (PHC string); null until an invited person sets one. */
    .addColumn("password_hash", "text")
    /** `member` or `operator`. */
    .addColumn("role", "text", (col) => col.notNull())
    .addColumn("plan", "text", (col) => col.notNull())
    /** `active` or `suspended`. */
    .addColumn("state", "text", (col) => col.notNull())
    .addColumn("created_at", "bigint", (col) => col.notNull())
    /** Wrong passwords in a row; at the limit the account is locked until `locked_until`. */
    .addColumn("failed_logins", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("locked_until", "bigint")
    .execute();
  /** The owning account of a key; null for a key the operator made (its own count). */
  await db.schema
    .alterTable("api_keys")
    .addColumn("account_id", "text", (col) => col.references("accounts.id").onDelete("cascade"))
    .execute();
  /** A rolled key works until this time beside its successor; null: no end but revocation. */
  await db.schema.alterTable("api_keys").addColumn("expires_at", "bigint").execute();
  await db.schema.createIndex("api_keys_account").on("api_keys").column("account_id").execute();
  await db.schema
    .createTable("account_usage")
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("period_start", "bigint", (col) => col.notNull())
    .addColumn("used", "integer", (col) => col.notNull())
    .addPrimaryKeyConstraint("account_usage_pk", ["account_id", "period_start"])
    .execute();
  await db.schema
    .createTable("sessions")
    /** sha-256 of the cookie's value. */
    .addColumn("hash", "text", (col) => col.primaryKey())
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("csrf", "text", (col) => col.notNull())
    .addColumn("last_seen_at", "bigint", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("sessions_account").on("sessions").column("account_id").execute();
  await db.schema
    .createTable("account_tickets")
    /** sha-256 of the link's token, or of `kind email` for a mailed code. */
    .addColumn("hash", "text", (col) => col.primaryKey())
    /** `signup`, `reset`, `invite`. */
    .addColumn("kind", "text", (col) => col.notNull())
    .addColumn("email", "text", (col) => col.notNull())
    /** sha-256 of a mailed code; null for a link. */
    .addColumn("code_hash", "text")
    .addColumn("tries_left", "integer", (col) => col.notNull())
    .addColumn("expires_at", "bigint", (col) => col.notNull())
    /** What the account gets: plan, role and the password chosen at sign-up (JSON). */
    .addColumn("payload", "text", (col) => col.notNull())
    .execute();
  /** Requests per key and UTC day, for the console's charts (written behind the exact count, at most a second late). */
  await db.schema
    .createTable("daily_usage")
    .addColumn("key_id", "text", (col) => col.notNull().references("api_keys.id").onDelete("cascade"))
    .addColumn("day", "bigint", (col) => col.notNull())
    .addColumn("used", "integer", (col) => col.notNull())
    .addPrimaryKeyConstraint("daily_usage_pk", ["key_id", "day"])
    .execute();
  /** Failed log-ins per client network, for the throttle. */
  await db.schema
    .createTable("login_failures")
    .addColumn("network", "text", (col) => col.primaryKey())
    .addColumn("failures", "integer", (col) => col.notNull())
    .addColumn("window_start", "bigint", (col) => col.notNull())
    .execute();
}
