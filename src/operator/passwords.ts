/**
 * Setting a password (docs/accounts.md "Passwords"): changed in the console, reset by a
 * mailed code, or set by a one-time link (an invitation, which makes the account, or an
 * operator's reset). Each ends every session of the account and opens one for the browser
 * that made the change (setPasswordAndEndSessions, the one place that does), and is
 * audited in the change's own transaction: `account.password_change`,
 * `account.password_reset`, `account.invite_accepted`.
 */
import { hashPassword } from "../service/accounts/account-access.js";
import type { Account, Store } from "../store/index.js";
import { type OpenedSession, openSession, setPasswordAndEndSessions } from "./account-sessions.js";
import { twoFactorOn } from "./accounts.js";
import { accountActor, recordChange } from "./audit.js";
import { passwordTry, trierOf, trySucceeded, type Wait } from "./login-throttle.js";
import { isCodeShaped, issueCode, peekLink, spendCode, spendLink } from "./one-time-secrets.js";
import { MAX_PASSWORD, passwordProblem } from "./password-policy.js";
import { refusalOf } from "./refusal.js";
import type { SendMail } from "./signup.js";

type PasswordStore = Pick<Store, "accounts" | "transaction" | "audit" | "twoFactor">;

/**
 * A password set, and the session of the browser that set it; none after a reset of an
 * account with two-factor on (a mailed code or a link is no second factor: the person
 * logs in at /login with the new password and a code).
 */
type PasswordSet = { kind: "set"; account: Account; session: OpenedSession | undefined; firstKey?: string };

export type PasswordChange =
  | PasswordSet
  | { kind: "wrong_current" }
  | { kind: "weak"; problem: string }
  /** The log-in throttle holds this account for this network (or the network): try again later. */
  | Wait;

/**
 * Changes the password of a logged-in account, its current one confirmed first: a
 * throttled try as at log-in (src/operator/login-throttle.ts), so a wrong current password
 * counts as a failed log-in of the account from this network.
 */
export async function changePassword(
  store: PasswordStore & Pick<Store, "loginThrottle">,
  account: Account,
  input: { current: string; password: string; network: string; now: Date },
): Promise<PasswordChange> {
  const { now } = input;
  if (input.current.length > MAX_PASSWORD) return { kind: "wrong_current" };
  const who = trierOf(account.email, input.network);
  const confirmed = await passwordTry(store, who, { email: account.email, password: input.current, now });
  if (confirmed.kind === "wait") return confirmed;
  if (confirmed.kind === "wrong" || confirmed.login.id !== account.id) return { kind: "wrong_current" };
  await trySucceeded(store, who);
  const problem = passwordProblem(input.password);
  if (problem) return { kind: "weak", problem };
  const passwordHash = await hashPassword(input.password);
  return store.transaction(async (trx) => {
    const session = await setPasswordAndEndSessions(trx, account, passwordHash, now);
    await recordChange(trx, accountActor(account), {
      action: "account.password_change",
      entity: { kind: "account", id: account.id },
      detail: { email: account.email },
    });
    return { kind: "set", account, session };
  });
}

/**
 * Mails a reset code to the account of `email`, if there is one (and the address may get
 * a code this hour); nothing otherwise. The page answers alike either way, and does not
 * wait for this (so a known address takes no longer than an unknown one).
 */
export async function requestResetCode(
  store: PasswordStore,
  email: string,
  now: Date,
  mail: SendMail,
): Promise<void> {
  const account = await store.accounts.findLogin(email);
  if (account?.state !== "active") return;
  const code = await issueCode(store, "reset", email, now);
  if (code) mail(email, "Your mailrisk reset code", `Your code: ${code}\nIt is valid for 15 minutes.\n`);
}

export type PasswordReset =
  | PasswordSet
  | { kind: "weak"; problem: string }
  /** Not 8 digits: refused before a try is spent. */
  | { kind: "malformed_code" }
  | { kind: "wrong_code" };

/** Sets a new password with a mailed reset code (spent in one statement: at most 5 guesses are judged). */
export async function resetPasswordByCode(
  store: PasswordStore,
  input: { email: string; code: string; password: string; now: Date },
): Promise<PasswordReset> {
  const { email, now } = input;
  const problem = passwordProblem(input.password);
  if (problem) return { kind: "weak", problem };
  if (!isCodeShaped(input.code)) return { kind: "malformed_code" };
  if (!(await spendCode(store, "reset", email, input.code, now))) return { kind: "wrong_code" };
  const account = await store.accounts.findLogin(email);
  if (!account) return { kind: "wrong_code" };
  const passwordHash = await hashPassword(input.password);
  const open = !(await twoFactorOn(store, account));
  return store.transaction(async (trx) => {
    const session = await setPasswordAndEndSessions(trx, account, passwordHash, now, open);
    await recordChange(trx, accountActor(account), {
      action: "account.password_reset",
      entity: { kind: "account", id: account.id },
      detail: { email, by: "code" },
    });
    return { kind: "set", account, session };
  });
}

/** The address a live link is for (to show its page); undefined for a used, expired or malformed one. */
export async function linkEmail(store: PasswordStore, token: string, now: Date): Promise<string | undefined> {
  return (await peekLink(store, token, now))?.email;
}

export type LinkUse =
  | PasswordSet
  | { kind: "gone" }
  | { kind: "weak"; problem: string; email: string }
  /** An invitation whose mailbox has an account by now. */
  | { kind: "exists" };

/**
 * Sets the password of a one-time link, which is used up in the same transaction (of
 * parallel posts, exactly one gets it): an invitation makes the account (audited
 * `account.invite_accepted`), a reset sets the password (`account.password_reset`).
 */
export async function useLink(
  store: PasswordStore,
  input: { token: string; password: string; now: Date },
): Promise<LinkUse> {
  const { token, now } = input;
  const email = await linkEmail(store, token, now);
  if (email === undefined) return { kind: "gone" };
  const problem = passwordProblem(input.password);
  if (problem) return { kind: "weak", problem, email };
  const passwordHash = await hashPassword(input.password);
  try {
    return await store.transaction(async (trx): Promise<LinkUse> => {
      const ticket = await spendLink(trx, token, now);
      if (!ticket) return { kind: "gone" };
      if (ticket.kind === "invite") {
        const role = ticket.payload.role ?? "member";
        const plan = ticket.payload.plan ?? "free";
        const { account, secret } = await trx.accounts.createAccount({
          email: ticket.email,
          passwordHash,
          role,
          plan,
          now,
        });
        await recordChange(trx, accountActor(account), {
          action: "account.invite_accepted",
          entity: { kind: "account", id: account.id },
          detail: { email: account.email, plan, role },
        });
        // The invitation made the account and its first key: the key's secret is shown once.
        return { kind: "set", account, session: await openSession(trx, account, now), firstKey: secret };
      }
      const account = await trx.accounts.findLogin(ticket.email);
      if (!account) return { kind: "gone" };
      const open = !(await twoFactorOn(trx, account));
      const session = await setPasswordAndEndSessions(trx, account, passwordHash, now, open);
      await recordChange(trx, accountActor(account), {
        action: "account.password_reset",
        entity: { kind: "account", id: account.id },
        detail: { email: account.email, by: "link" },
      });
      return { kind: "set", account, session };
    });
  } catch (error) {
    if (refusalOf(error)?.code === "account_exists") return { kind: "exists" };
    throw error;
  }
}
