/**
 * How people reach their account (docs/accounts.md): argon2id passwords, the password check
 * of log-in, sessions stored as rows, and the one-time codes (mailed) and links (printed or
 * mailed) of sign-up, reset and invitation. Log-in and the codes answer alike for a known
 * and an unknown email, in the same time.
 */
import { hash as argonHash, verify as argonVerify } from "@node-rs/argon2";
import { DAY_MS } from "../core/time.js";
import { hashSecret, newCode, newToken } from "../store/secrets.js";
import type { AccountLogin, AccountsRepository, AccountTicket } from "../store/types.js";

const MINUTE_MS = 60_000;
/** A mailed code: 15 minutes, 5 tries. */
export const CODE_TTL_MS = 15 * MINUTE_MS;
export const CODE_TRIES = 5;
/** A printed or mailed link: 7 days, once. */
export const LINK_TTL_MS = 7 * DAY_MS;
export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 200;

/** OWASP's argon2id parameters: 19 MiB, 2 passes, 1 lane. */
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argonHash(password, ARGON2);
}

/** Hashed once, verified for an unknown email so that it costs what a known one does. */
let dummyHash: Promise<string> | undefined;

async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  dummyHash ??= hashPassword("not the password of anyone");
  const valid = await argonVerify(stored ?? (await dummyHash), password).catch(() => false);
  return stored !== null && valid;
}

/** What is wrong with a new password, or undefined. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD) return `Use at least ${MIN_PASSWORD} characters.`;
  if (password.length > MAX_PASSWORD) return `Use at most ${MAX_PASSWORD} characters.`;
  return undefined;
}

/** An email address in its stored form (lower case), or undefined when it is none. */
export function normaliseEmail(text: string): string | undefined {
  const email = text.trim().toLowerCase();
  return email.length <= 254 && /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>".]+$/.test(email) ? email : undefined;
}

type AccessStore = { accounts: AccountsRepository };

/**
 * The account of an email whose password this is (in any state), or undefined, in the
 * same time for an unknown email (the dummy hash). The throttle is the caller's
 * (src/operator/login-throttle.ts).
 */
export async function checkPassword(
  store: AccessStore,
  email: string,
  password: string,
): Promise<AccountLogin | undefined> {
  const login = await store.accounts.findLogin(normaliseEmail(email) ?? "");
  const valid = await verifyPassword(login?.passwordHash ?? null, password);
  return login && valid ? login : undefined;
}

/** The token of the anonymous forms' CSRF cookie (double submit). */
export const newFormToken = newToken;

/** A new session: the cookie's token (only its hash is stored) and the CSRF token of its forms. */
export async function startSession(
  store: AccessStore,
  accountId: string,
  now: Date,
): Promise<{ token: string; csrf: string }> {
  const token = newToken();
  const csrf = newToken();
  await store.accounts.createSession({ hash: hashSecret(token), accountId, csrf, now });
  return { token, csrf };
}

/** The session's account and CSRF token, while used within `idleMs`. */
export function sessionOf(store: AccessStore, token: string, now: Date, idleMs: number) {
  return store.accounts.findSession(hashSecret(token), now, new Date(now.getTime() - idleMs));
}

export function endSession(store: AccessStore, token: string): Promise<void> {
  return store.accounts.deleteSession(hashSecret(token));
}

function codeTicketHash(kind: AccountTicket["kind"], email: string): string {
  return hashSecret(`${kind} ${email}`);
}

/** A new 8-digit code for `email` (replacing an earlier one), to be mailed. */
export async function issueCode(
  store: AccessStore,
  kind: "signup" | "reset",
  email: string,
  payload: AccountTicket["payload"],
  now: Date,
): Promise<string> {
  const code = newCode();
  await store.accounts.saveTicket({
    hash: codeTicketHash(kind, email),
    kind,
    email,
    codeHash: hashSecret(code),
    triesLeft: CODE_TRIES,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    payload,
  });
  return code;
}

/** The ticket a right code opens (used up); a wrong one spends a try. */
export async function redeemCode(
  store: AccessStore,
  kind: "signup" | "reset",
  email: string,
  code: string,
  now: Date,
): Promise<AccountTicket | undefined> {
  const hash = codeTicketHash(kind, email);
  const ticket = await store.accounts.findTicket(hash, now);
  if (!ticket) return undefined;
  if (ticket.codeHash !== hashSecret(code.trim())) {
    await store.accounts.spendTry(hash);
    return undefined;
  }
  await store.accounts.deleteTicket(hash);
  return ticket;
}

/** A one-time link's token for `email`, valid LINK_TTL_MS. */
export async function issueLink(
  store: AccessStore,
  kind: "invite" | "reset",
  email: string,
  payload: AccountTicket["payload"],
  now: Date,
): Promise<string> {
  const token = newToken();
  await store.accounts.saveTicket({
    hash: hashSecret(token),
    kind,
    email,
    codeHash: null,
    triesLeft: 1,
    expiresAt: new Date(now.getTime() + LINK_TTL_MS),
    payload,
  });
  return token;
}

/** The live ticket of a link; `redeem` uses it up. */
export async function linkTicket(store: AccessStore, token: string, now: Date) {
  const ticket = await store.accounts.findTicket(hashSecret(token), now);
  return ticket && { ticket, redeem: () => store.accounts.deleteTicket(ticket.hash) };
}
