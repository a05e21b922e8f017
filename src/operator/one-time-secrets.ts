/**
 * The one-time secrets of accounts (docs/security.md "One-time secrets"): 8-digit codes
 * mailed for sign-up and reset, links for invitations and operator resets. Each is stored
 * as an HMAC under a key the server made at first start (a database dump alone reverses
 * none), and spent in one statement, so that parallel requests judge at most CODE_TRIES
 * guesses and use a link once. What goes to one mailbox is bounded: CODES_PER_HOUR codes
 * (sign-up, reset and log-in together) and MAILS_PER_HOUR mails for any reason.
 */
import { createHmac } from "node:crypto";
import { mailboxOf } from "../core/mailbox.js";
import { DAY_MS } from "../core/time.js";
import type { AccountsRepository, AccountTicket } from "../store/index.js";
import { newCode, newToken } from "../store/secrets.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** A mailed code: 15 minutes, 5 tries. */
export const CODE_TTL_MS = 15 * MINUTE_MS;
export const CODE_TRIES = 5;
/** A printed or mailed link: 7 days, once. */
export const LINK_TTL_MS = 7 * DAY_MS;
/** Codes one mailbox is sent per hour, sign-up, reset and log-in (src/operator/log-in.ts) together. */
export const CODES_PER_HOUR = 3;
/** Mails one mailbox is sent per hour, for any reason. */
export const MAILS_PER_HOUR = 5;

/** A code as issued: 8 digits. */
const CODE_FORMAT = /^\d{8}$/;
/** A link's token as issued: 32 base62 characters. */
const TOKEN_FORMAT = /^[0-9A-Za-z]{32}$/;

type SecretsStore = { accounts: AccountsRepository };

/** The HMAC (sha-256) of `text` under the server's ticket key. */
export async function secretDigest(store: SecretsStore, text: string): Promise<string> {
  const key = await store.accounts.serverSecret("ticket_hmac");
  return createHmac("sha256", key).update(text).digest("hex");
}

function codeTicketText(kind: "signup" | "reset", email: string): string {
  return `code ${kind} ${email}`;
}

/** Whether a mail may go, and when not, the seconds until the mailbox's hour ends. */
export type MailBudget = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Counts a mail to `email`'s mailbox; whether it may go (within MAILS_PER_HOUR, and CODES_PER_HOUR for a code). */
export async function mailBudget(
  store: SecretsStore,
  email: string,
  now: Date,
  code = false,
): Promise<MailBudget> {
  const since = new Date(now.getTime() - HOUR_MS);
  const { mails, codes, windowStart } = await store.accounts.countMail(mailboxOf(email), now, since, code);
  if (mails <= MAILS_PER_HOUR && (!code || codes <= CODES_PER_HOUR)) return { allowed: true };
  const endsInMs = windowStart.getTime() + HOUR_MS - now.getTime();
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(endsInMs / 1000)) };
}

/**
 * A new 8-digit code to mail to `email`, or undefined when none may be sent: a live code
 * for the address and purpose exists already (it stays as it is: asking again changes
 * nothing of it), or the mailbox had its codes or mails of the hour.
 */
export async function issueCode(
  store: SecretsStore,
  kind: "signup" | "reset",
  email: string,
  now: Date,
): Promise<string | undefined> {
  const code = newCode();
  const hash = await secretDigest(store, codeTicketText(kind, email));
  const ticket: AccountTicket = {
    hash,
    kind,
    email,
    codeHash: await secretDigest(store, code),
    triesLeft: CODE_TRIES,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    payload: {},
  };
  if (!(await store.accounts.issueTicket(ticket, now))) return undefined;
  if ((await mailBudget(store, email, now, true)).allowed) return code;
  await store.accounts.deleteTicket(hash);
  return undefined;
}

/** Whether a posted code has the shape of one (8 digits): anything else is refused before a try is spent. */
export function isCodeShaped(code: string): boolean {
  return CODE_FORMAT.test(code.trim());
}

/**
 * Judges a code in one statement: true for the right code of a live ticket (spent now),
 * false otherwise (a try spent when there was one; none when the code is not 8 digits).
 */
export async function spendCode(
  store: SecretsStore,
  kind: "signup" | "reset",
  email: string,
  code: string,
  now: Date,
): Promise<boolean> {
  if (!isCodeShaped(code)) return false;
  const hash = await secretDigest(store, codeTicketText(kind, email));
  const judged = await store.accounts.spendCode(hash, await secretDigest(store, code.trim()), now);
  if (judged?.matched) await store.accounts.deleteTicket(hash);
  return judged?.matched === true;
}

/** A one-time link's token for `email`, valid LINK_TTL_MS. */
export async function issueLink(
  store: SecretsStore,
  kind: "invite" | "reset",
  email: string,
  payload: AccountTicket["payload"],
  now: Date,
): Promise<string> {
  const token = newToken();
  await store.accounts.issueTicket(
    {
      hash: await secretDigest(store, `link ${token}`),
      kind,
      email,
      codeHash: null,
      triesLeft: 1,
      expiresAt: new Date(now.getTime() + LINK_TTL_MS),
      payload,
    },
    now,
  );
  return token;
}

/** The live ticket of a link, left unused (to show its page); undefined for a token of the wrong shape. */
export async function peekLink(
  store: SecretsStore,
  token: string,
  now: Date,
): Promise<AccountTicket | undefined> {
  if (!TOKEN_FORMAT.test(token)) return undefined;
  return store.accounts.peekTicket(await secretDigest(store, `link ${token}`), now);
}

/** Uses a link up in one statement: its ticket for the one caller that got it, else undefined. */
export async function spendLink(
  store: SecretsStore,
  token: string,
  now: Date,
): Promise<AccountTicket | undefined> {
  if (!TOKEN_FORMAT.test(token)) return undefined;
  return store.accounts.spendLink(await secretDigest(store, `link ${token}`), now);
}
