/**
 * How people reach their account (docs/accounts.md): argon2id passwords, the password check
 * of log-in, and sessions stored as rows (ended after SESSION_TTL unused or SESSION_MAX_AGE
 * from their start). The password check answers alike for a known and an unknown email,
 * in the same time (the dummy hash); its throttle is the caller's.
 */
import { hash as argonHash, verify as argonVerify } from "@node-rs/argon2";
import { hashSecret } from "../../core/key-formats.js";
import type { AccountLogin, AccountsRepository } from "../../store/index.js";
import { newToken } from "../../store/secrets.js";

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

/** The session's account and CSRF token, while used within `idleMs` and begun within `maxAgeMs`. */
export function sessionOf(store: AccessStore, token: string, now: Date, idleMs: number, maxAgeMs: number) {
  const at = now.getTime();
  return store.accounts.findSession(hashSecret(token), now, new Date(at - idleMs), new Date(at - maxAgeMs));
}

export function endSession(store: AccessStore, token: string): Promise<void> {
  return store.accounts.deleteSession(hashSecret(token));
}
