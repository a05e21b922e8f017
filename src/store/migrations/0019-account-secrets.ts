/**
 * Accounts safe to open (docs/accounts.md, docs/security.md): one account per mailbox,
 * an absolute lifetime for sessions, sign-ups whose password stays with the browser that
 * chose it, the mail budget of an address, and the server's own secrets (the key that
 * codes and link tokens are stored under, as HMACs).
 */
import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { mailboxOf } from "../../core/mailbox.js";

export async function up(db: Kysely<unknown>): Promise<void> {
  /** Secrets the server makes for itself at first start (random, never logged). */
  await db.schema
    .createTable("server_secrets")
    .addColumn("name", "text", (col) => col.primaryKey())
    .addColumn("value", "text", (col) => col.notNull())
    .execute();
  await sql`insert into server_secrets (name, value) values ('ticket_hmac', ${randomBytes(32).toString("base64url")})`.execute(
    db,
  );

  /** The mailbox the email delivers to (src/core/mailbox.ts): one account each. */
  await db.schema.alterTable("accounts").addColumn("mailbox", "text").execute();
  const rows = await sql<{
    id: string;
    email: string;
  }>`select id, email from accounts order by created_at, id`.execute(db);
  const taken = new Set<string>();
  for (const { id, email } of rows.rows) {
    // An account made before this rule whose mailbox another holds keeps its email as its own.
    const mailbox = taken.has(mailboxOf(email)) ? email : mailboxOf(email);
    taken.add(mailbox);
    await sql`update accounts set mailbox = ${mailbox} where id = ${id}`.execute(db);
  }
  await db.schema.createIndex("accounts_mailbox").on("accounts").column("mailbox").unique().execute();

  /** When the session began: it ends SESSION_MAX_AGE after, however often used. */
  await db.schema
    .alterTable("sessions")
    .addColumn("created_at", "bigint", (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`update sessions set created_at = last_seen_at`.execute(db);

  /**
   * The password a browser chose at sign-up, waiting for the mailed code: keyed by the
   * HMAC of the address and the browser's form token, so only that browser's confirmation
   * takes it.
   */
  await db.schema
    .createTable("pending_signups")
    .addColumn("hash", "text", (col) => col.primaryKey())
    .addColumn("email", "text", (col) => col.notNull())
    .addColumn("password_hash", "text", (col) => col.notNull())
    .addColumn("plan", "text", (col) => col.notNull())
    .addColumn("expires_at", "bigint", (col) => col.notNull())
    .execute();

  /** Mails (and, of them, codes) sent to one mailbox in the hour that began at `window_start`. */
  await db.schema
    .createTable("mail_budget")
    .addColumn("mailbox", "text", (col) => col.primaryKey())
    .addColumn("window_start", "bigint", (col) => col.notNull())
    .addColumn("mails", "integer", (col) => col.notNull())
    .addColumn("codes", "integer", (col) => col.notNull())
    .execute();

  // Codes and link tokens were stored as bare sha-256; they are HMACs now, so the old ones
  // could not be redeemed: they go (a code lives 15 minutes; an operator makes a link again).
  await sql`delete from account_tickets`.execute(db);
}
