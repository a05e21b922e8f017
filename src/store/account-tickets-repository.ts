/**
 * The one-time secrets of accounts (docs/security.md "One-time secrets"): mailed codes and
 * links, spent in one statement each (`UPDATE … WHERE tries_left > 0 … RETURNING`,
 * `DELETE … RETURNING`) so that parallel requests can never spend one twice; the password a
 * browser chose at sign-up; the mail budget of a mailbox; the server's own secrets.
 */
import { type Kysely, type Selectable, sql } from "kysely";
import type { AccountTicketsTable } from "./account-schema.js";
import type { AccountsRepository, AccountTicket, PendingSignup } from "./accounts-types.js";
import { toDate } from "./columns.js";
import type { Database } from "./schema.js";

type TicketMethods = Pick<
  AccountsRepository,
  | "serverSecret"
  | "issueTicket"
  | "deleteTicket"
  | "peekTicket"
  | "spendCode"
  | "spendLink"
  | "savePendingSignup"
  | "takePendingSignup"
  | "countMail"
>;

function toTicket(row: Selectable<AccountTicketsTable>): AccountTicket {
  return {
    hash: row.hash,
    kind: row.kind as AccountTicket["kind"],
    email: row.email,
    codeHash: row.code_hash,
    triesLeft: row.tries_left,
    expiresAt: toDate(row.expires_at),
    payload: JSON.parse(row.payload) as AccountTicket["payload"],
  };
}

export function ticketMethods(db: Kysely<Database>): TicketMethods {
  return {
    async serverSecret(name) {
      const row = await db
        .selectFrom("server_secrets")
        .select("value")
        .where("name", "=", name)
        .executeTakeFirst();
      if (!row) throw new Error(`the server secret "${name}" is missing: were the migrations applied?`);
      return row.value;
    },
    async issueTicket(ticket, now) {
      const values = {
        hash: ticket.hash,
        kind: ticket.kind,
        email: ticket.email,
        code_hash: ticket.codeHash,
        tries_left: ticket.triesLeft,
        expires_at: ticket.expiresAt.getTime(),
        payload: JSON.stringify(ticket.payload),
      };
      const row = await db
        .insertInto("account_tickets")
        .values(values)
        .onConflict((oc) =>
          oc
            .column("hash")
            .doUpdateSet(values)
            .where((eb) =>
              eb.or([
                eb("account_tickets.expires_at", "<=", now.getTime()),
                eb("account_tickets.tries_left", "<=", 0),
              ]),
            ),
        )
        .returning("hash")
        .executeTakeFirst();
      return row !== undefined;
    },
    async deleteTicket(hash) {
      await db.deleteFrom("account_tickets").where("hash", "=", hash).execute();
    },
    async peekTicket(hash, now) {
      const row = await db
        .selectFrom("account_tickets")
        .selectAll()
        .where("hash", "=", hash)
        .where("expires_at", ">", now.getTime())
        .where("tries_left", ">", 0)
        .executeTakeFirst();
      return row && toTicket(row);
    },
    async spendCode(hash, codeHash, now) {
      const row = await db
        .updateTable("account_tickets")
        .set({
          tries_left: sql`case when code_hash = ${codeHash} then 0 else tries_left - 1 end`,
        })
        .where("hash", "=", hash)
        .where("tries_left", ">", 0)
        .where("expires_at", ">", now.getTime())
        .where("code_hash", "is not", null)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      return { ticket: toTicket(row), matched: row.code_hash === codeHash };
    },
    async spendLink(hash, now) {
      const row = await db
        .deleteFrom("account_tickets")
        .where("hash", "=", hash)
        .where("expires_at", ">", now.getTime())
        .where("tries_left", ">", 0)
        .where("code_hash", "is", null)
        .returningAll()
        .executeTakeFirst();
      return row && toTicket(row);
    },
    async savePendingSignup(pending) {
      const values = {
        hash: pending.hash,
        email: pending.email,
        password_hash: pending.passwordHash,
        plan: pending.plan,
        expires_at: pending.expiresAt.getTime(),
      };
      await db
        .insertInto("pending_signups")
        .values(values)
        .onConflict((oc) => oc.column("hash").doUpdateSet(values))
        .execute();
    },
    async takePendingSignup(hash, now): Promise<PendingSignup | undefined> {
      const row = await db
        .deleteFrom("pending_signups")
        .where("hash", "=", hash)
        .where("expires_at", ">", now.getTime())
        .returningAll()
        .executeTakeFirst();
      return (
        row && {
          hash: row.hash,
          email: row.email,
          passwordHash: row.password_hash,
          plan: row.plan,
          expiresAt: toDate(row.expires_at),
        }
      );
    },
    async countMail(mailbox, now, since, code) {
      const inWindow = sql`mail_budget.window_start > ${since.getTime()}`;
      const codes = code ? 1 : 0;
      const row = await db
        .insertInto("mail_budget")
        .values({ mailbox, window_start: now.getTime(), mails: 1, codes })
        .onConflict((oc) =>
          oc.column("mailbox").doUpdateSet({
            mails: sql`case when ${inWindow} then mail_budget.mails + 1 else 1 end`,
            codes: sql`case when ${inWindow} then mail_budget.codes + ${codes} else ${codes} end`,
            window_start: sql`case when ${inWindow} then mail_budget.window_start else ${now.getTime()} end`,
          }),
        )
        .returning(["mails", "codes", "window_start"])
        .executeTakeFirstOrThrow();
      return { mails: Number(row.mails), codes: Number(row.codes), windowStart: toDate(row.window_start) };
    },
  };
}
