/**
 * How people reach their account (docs/accounts.md): argon2id passwords, log-in with its
 * throttle, sessions stored as rows, and the one-time codes (mailed) and links (printed or
 * mailed) of sign-up, reset and invitation. Log-in and the codes answer alike for a known
 * and an unknown email, in the same time.
 */
import { hash as argonHash, verify as argonVerify } from "@node-rs/argon2";
import { DAY_MS } from "../core/time.js";
import { hashSecret, newCode, newToken } from "../store/secrets.js";
import type { Account, AccountsRepository, AccountTicket } from "../store/types.js";

const MINUTE_MS = 60_000;
/** A mailed code: 15 minutes, 5 tries. */
export const CODE_TTL_MS = 15 * MINUTE_MS;
export const CODE_TRIES = 5;
/** A printed or mailed link: 7 days, once. */
export const LINK_TTL_MS = 7 * DAY_MS;
/** Wrong passwords in a row that lock an account, and for how long. */
export const LOCK_AFTER = 10;
export const LOCK_MS = 15 * MINUTE_MS;
/** Failed log-ins one client network (/24, /64) may make in LOCK_MS. */
export const NETWORK_FAILURES = 50;
export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 200;

/** argon2id's cost: memory in KiB, passes, lanes. */
export interface PasswordCost {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP's argon2id parameters: 19 MiB, 2 passes, 1 lane; what the service hashes with. */
export const OWASP_ARGON2: PasswordCost = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/**
 * The password's argon2id hash (a PHC string, which carries its cost: a verify costs what
 * its hash did). A test that only needs an account to log in to may pass a lower cost.
 */
export function hashPassword(password: string, cost: PasswordCost = OWASP_ARGON2): Promise<string> {
  return argonHash(password, { algorithm: 2, ...cost });
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
 * The account for an email and password, or undefined, the same way for every reason
 * (unknown, wrong, locked, suspended, the network over its failures).
 */
export async function logIn(
  store: AccessStore,
  input: { email: string; password: string; network: string; now: Date },
): Promise<Account | undefined> {
  const { password, network, now } = input;
  const since = new Date(now.getTime() - LOCK_MS);
  const login = await store.accounts.findLogin(normaliseEmail(input.email) ?? "");
  const networkOver = (await store.accounts.networkFailures(network, now, since, false)) >= NETWORK_FAILURES;
  const valid = await verifyPassword(login?.passwordHash ?? null, password);
  const locked = login?.lockedUntil !== null && login?.lockedUntil !== undefined && login.lockedUntil > now;
  if (login && valid && !locked && !networkOver && login.state === "active") {
    await store.accounts.clearFailedLogins(login.id);
    const { passwordHash: _hash, failedLogins: _failed, lockedUntil: _until, ...account } = login;
    return account;
  }
  if (login && !valid && !locked) {
    await store.accounts.noteFailedLogin(login.id, LOCK_AFTER, new Date(now.getTime() + LOCK_MS));
  }
  if (!valid) await store.accounts.networkFailures(network, now, since, true);
  return undefined;
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
