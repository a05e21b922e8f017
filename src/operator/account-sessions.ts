/**
 * An account's sessions (docs/accounts.md "Sessions and forms"): opened at log-in,
 * sign-up, an accepted invitation and a password set; ended by log-out, here or
 * everywhere (audited), and by every password change and reset, which end all of them and
 * open a new one for the browser that made the change.
 */
import { endSession, startSession } from "../service/accounts/account-access.js";
import type { Account, Store } from "../store/index.js";
import { type Actor, accountActor, audited } from "./audit.js";

/** A session just opened: the cookie's token and the CSRF token of its forms. */
export type OpenedSession = { token: string; csrf: string };

type SessionStore = Pick<Store, "accounts" | "transaction" | "audit">;

/** Opens a session of the account. */
export function openSession(
  store: Pick<Store, "accounts">,
  account: Account,
  now: Date,
): Promise<OpenedSession> {
  return startSession(store, account.id, now);
}

/** Ends this browser's session. */
export function logOut(store: Pick<Store, "accounts">, token: string): Promise<void> {
  return endSession(store, token);
}

/** Ends every session of the account (this browser's too); audited `account.logout_everywhere`. */
export function logOutEverywhere(
  store: SessionStore,
  account: Account,
  actor: Actor = accountActor(account),
) {
  return audited(
    store,
    actor,
    (trx) => trx.accounts.deleteSessions(account.id),
    (ended) => ({
      action: "account.logout_everywhere",
      entity: { kind: "account", id: account.id },
      detail: { email: account.email, sessions: ended },
    }),
  );
}

/**
 * The one place a password is set on an existing account: the new hash, every session
 * ended, a new one opened for the browser that set it unless `open` is false (a reset of
 * an account with two-factor on: the browser logs in at /login, code and all). Runs in
 * the caller's transaction.
 */
export async function setPasswordAndEndSessions(
  trx: Pick<Store, "accounts">,
  account: Account,
  passwordHash: string,
  now: Date,
  open = true,
): Promise<OpenedSession | undefined> {
  await trx.accounts.setPassword(account.id, passwordHash);
  await trx.accounts.deleteSessions(account.id);
  return open ? openSession(trx, account, now) : undefined;
}
