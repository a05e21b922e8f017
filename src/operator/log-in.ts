/**
 * Log-in (docs/accounts.md "Log-in"): the password, throttled (login-throttle.ts), then,
 * for an account with two-factor on (or one under attack from many networks, by a mailed
 * code), a second step whose code is throttled the same way. A suspended account with the
 * right password is told so; every other refusal reads the same for a known and an
 * unknown email. A mailed code is one of the mailbox's codes of the hour
 * (one-time-secrets.ts), and the pending log-in's token and its code are stored as HMACs.
 */
import { randomBytes } from "node:crypto";
import type { Account, Store } from "../store/index.js";
import {
  needsMailedCode,
  passwordTry,
  takeTry,
  trierOf,
  tryFailed,
  tryGivenBack,
  trySucceeded,
  type Wait,
} from "./login-throttle.js";
import { mailBudget, secretDigest } from "./one-time-secrets.js";
import { isMailedCode, MAX_CODE_LENGTH, mailedCode, takeCode } from "./two-factor.js";

/** How long the code step waits, and how many codes it takes. */
const PENDING_MS = 10 * 60_000;
const PENDING_TRIES = 5;

type LogInStore = Pick<Store, "accounts" | "twoFactor" | "loginThrottle">;

/** The second step: the code form carries `token`; `mail` is the code to send, for a mailed one. */
export interface SecondStep {
  kind: "code";
  token: string;
  via: "totp" | "mail";
  mail?: { to: string; code: string };
}

export type LogIn =
  | { kind: "done"; account: Account }
  | SecondStep
  | { kind: "wrong" }
  | { kind: "suspended" }
  /** The right password, but the mailed code it needs is over the mailbox's codes of the hour (which ends in `retryAfterSeconds`). */
  | { kind: "mail_limit"; retryAfterSeconds: number }
  | Wait;

export type CodeStep =
  | { kind: "done"; account: Account }
  | { kind: "wrong"; via: "totp" | "mail" }
  | { kind: "suspended" }
  /** The pending log-in is over (used, expired or out of tries): start again with the password. */
  | { kind: "gone" }
  /** Not a code at all (too long): nothing was counted. */
  | { kind: "malformed" }
  | Wait;

/** A pending log-in's token as stored: its HMAC under the server's key. */
const tokenHash = (store: LogInStore, token: string) => secretDigest(store, `login ${token}`);

export async function logInWithPassword(
  store: LogInStore,
  input: { email: string; password: string; network: string; now: Date; canMail: boolean },
): Promise<LogIn> {
  const { now } = input;
  const who = trierOf(input.email, input.network);
  const tried = await passwordTry(store, who, input);
  if (tried.kind !== "right") return tried;
  const { login } = tried;
  if (login.state !== "active") {
    await trySucceeded(store, who);
    return { kind: "suspended" };
  }
  const { passwordHash: _hash, ...account } = login;
  const totp = (await store.twoFactor.findSecret(account.id)) !== undefined;
  const mail = !totp && input.canMail && (await needsMailedCode(store, who, now));
  if (!totp && !mail) {
    await trySucceeded(store, who);
    return { kind: "done", account };
  }
  await tryGivenBack(store, who);
  // The mailed code counts in the mailbox's budget as a sign-up or reset code does.
  if (mail) {
    const budget = await mailBudget(store, account.email, now, true);
    if (!budget.allowed) return { kind: "mail_limit", retryAfterSeconds: budget.retryAfterSeconds };
  }
  const token = randomBytes(32).toString("base64url");
  const mailed = mail ? await mailedCode(store, token) : undefined;
  await store.twoFactor.savePendingLogin({
    hash: await tokenHash(store, token),
    accountId: account.id,
    via: mailed ? "mail" : "totp",
    codeHash: mailed?.codeHash ?? null,
    triesLeft: PENDING_TRIES,
    expiresAt: new Date(now.getTime() + PENDING_MS),
  });
  return mailed
    ? { kind: "code", token, via: "mail", mail: { to: account.email, code: mailed.code } }
    : { kind: "code", token, via: "totp" };
}

/** The second step: a TOTP code, a recovery code or the mailed code, for the pending log-in of `token`. */
export async function logInWithCode(
  store: LogInStore,
  input: { token: string; code: string; network: string; now: Date },
): Promise<CodeStep> {
  const { token, code, now } = input;
  if (code.length > MAX_CODE_LENGTH || token.length > MAX_CODE_LENGTH) return { kind: "malformed" };
  const pending = await store.twoFactor.findPendingLogin(await tokenHash(store, token), now);
  const account = pending && (await store.accounts.getAccount(pending.accountId));
  if (!pending || !account) return { kind: "gone" };
  const who = trierOf(account.email, input.network);
  const gate = await takeTry(store, who, now);
  if (gate.kind === "wait") return gate;
  if (!(await store.twoFactor.spendLoginTry(pending.hash, now))) return { kind: "gone" };
  const right =
    pending.via === "mail"
      ? await isMailedCode(store, token, pending.codeHash ?? "", code)
      : await takeCode(store, account, code, now);
  if (!right) {
    await tryFailed(store, who, now);
    return { kind: "wrong", via: pending.via };
  }
  if (!(await store.twoFactor.endPendingLogin(pending.hash))) return { kind: "gone" };
  await trySucceeded(store, who);
  return account.state === "active" ? { kind: "done", account } : { kind: "suspended" };
}
