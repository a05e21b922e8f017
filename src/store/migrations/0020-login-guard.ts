/**
 * The log-in guard (docs/security.md "Log-in throttling", docs/accounts.md "Two-factor
 * log-in"): failed log-ins counted per account and client network, per network and per
 * account in windows of their own (replacing the account-wide lock of 0015), the
 * accounts' TOTP secrets and recovery codes, and the log-ins waiting for their second step.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("login_throttle")
    /** What is counted: `an:<account> <network>`, `n:<network>` or `a:<account>` (the account as a hash of its email). */
    .addColumn("subject", "text", (col) => col.primaryKey())
    .addColumn("failures", "integer", (col) => col.notNull())
    .addColumn("window_start", "bigint", (col) => col.notNull())
    /** Tries wait (429) until then; null: no wait. */
    .addColumn("locked_until", "bigint")
    .execute();
  await db.schema.createIndex("login_throttle_window").on("login_throttle").column("window_start").execute();
  await db.schema
    .createTable("two_factor")
    .addColumn("account_id", "text", (col) => col.primaryKey().references("accounts.id").onDelete("cascade"))
    /** The TOTP secret (base32) once turned on; null: off. */
    .addColumn("secret", "text")
    /** A secret shown at set-up and not yet confirmed by a code, until `pending_expires_at`. */
    .addColumn("pending_secret", "text")
    .addColumn("pending_expires_at", "bigint")
    /** The last TOTP time step accepted: no code of it or before is taken again. */
    .addColumn("last_step", "bigint")
    .execute();
  await db.schema
    .createTable("recovery_codes")
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id").onDelete("cascade"))
    /** sha-256 of the account's id and the code (80 random bits). */
    .addColumn("hash", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("recovery_codes_pk", ["account_id", "hash"])
    .execute();
  await db.schema
    .createTable("pending_logins")
    /** sha-256 of the token the code form carries. */
    .addColumn("hash", "text", (col) => col.primaryKey())
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id").onDelete("cascade"))
    /** `totp` (the authenticator's code or a recovery code) or `mail` (a mailed code). */
    .addColumn("via", "text", (col) => col.notNull())
    /** A mailed code's HMAC keyed with the form's token; null for `totp`. */
    .addColumn("code_hash", "text")
    .addColumn("tries_left", "integer", (col) => col.notNull())
    .addColumn("expires_at", "bigint", (col) => col.notNull())
    .execute();
  await db.schema.dropTable("login_failures").execute();
  await db.schema.alterTable("accounts").dropColumn("failed_logins").execute();
  await db.schema.alterTable("accounts").dropColumn("locked_until").execute();
}
