/**
 * The log-in guard inside the account service (docs/security.md "Log-in throttling" and
 * "Accounts: one-time secrets and mail"), on SQLite and PostgreSQL: the code mailed to an
 * account attacked from many networks is one of its mailbox's codes of the hour and is
 * stored, with the code step's token, only as HMACs; a wrong current password in a
 * password change counts as a failed log-in of that network, as at /login; a reset (a
 * mailed code or a link, no second factor) of an account with two-factor on opens no
 * session.
 */
import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { type LogIn, logInWithCode, logInWithPassword } from "../../src/operator/log-in.js";
import { MAIL_CODE_AFTER, trierOf, tryFailed } from "../../src/operator/login-throttle.js";
import { CODES_PER_HOUR, issueLink, secretDigest } from "../../src/operator/one-time-secrets.js";
import { changePassword, useLink } from "../../src/operator/passwords.js";
import { hashPassword } from "../../src/service/accounts/account-access.js";
import type { Account } from "../../src/store/index.js";

const NOW = new Date("2026-03-01T10:00:00Z");
const EMAIL = "ann@example.com";
const PASSWORD = "a long unusual password";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe.each(DATABASE_KINDS)("the log-in guard in the account service on %s", (kind) => {
  let db: TestStore;
  let account: Account;
  beforeEach(async () => {
    db = await openTestStore(kind);
    ({ account } = await db.store.accounts.createAccount({
      email: EMAIL,
      passwordHash: await hashPassword(PASSWORD),
      role: "member",
      plan: "free",
      now: NOW,
    }));
  });
  afterEach(() => db.cleanup());

  const logIn = (network: string, password = PASSWORD): Promise<LogIn> =>
    logInWithPassword(db.store, { email: EMAIL, password, network, now: NOW, canMail: true });

  it("mails log-in codes within the mailbox's codes of the hour, stored only as HMACs", async () => {
    for (let i = 0; i <= MAIL_CODE_AFTER; i++)
      await tryFailed(db.store, trierOf(EMAIL, `10.0.${i}.0/24`), NOW);

    const mailed: { token: string; code: string }[] = [];
    for (let i = 0; i < CODES_PER_HOUR; i++) {
      const outcome = await logIn("192.0.2.0/24");
      if (outcome.kind !== "code" || !outcome.mail) throw new Error(`no mailed code: ${outcome.kind}`);
      expect(outcome.mail).toEqual({ to: EMAIL, code: expect.stringMatching(/^\d{8}$/) });
      mailed.push({ token: outcome.token, code: outcome.mail.code });
    }
    // The mailbox had its codes of the hour: the right password is told so, and no code is made.
    expect(await logIn("192.0.2.0/24")).toEqual({ kind: "mail_limit", retryAfterSeconds: 3600 });

    const [first] = mailed;
    if (!first) throw new Error("no code");
    expect(await db.store.twoFactor.findPendingLogin(sha256(first.token), NOW)).toBeUndefined();
    const pending = await db.store.twoFactor.findPendingLogin(
      await secretDigest(db.store, `login ${first.token}`),
      NOW,
    );
    expect(pending?.via).toBe("mail");
    expect([sha256(first.code), sha256(`${first.token} ${first.code}`)]).not.toContain(pending?.codeHash);

    const step = { token: first.token, code: first.code, network: "192.0.2.0/24", now: NOW };
    expect(await logInWithCode(db.store, step)).toMatchObject({ kind: "done", account: { id: account.id } });
  }, 60_000);

  it("counts a wrong current password of a password change as a failed log-in of its network", async () => {
    const change = (network: string, current: string) =>
      changePassword(db.store, account, { current, password: "a new unusual password", network, now: NOW });
    for (let i = 0; i < 10; i++)
      expect(await change("198.51.100.0/24", `wrong ${i}`)).toEqual({ kind: "wrong_current" });
    // That network is locked out of the account, for the change and for log-in alike.
    expect(await change("198.51.100.0/24", PASSWORD)).toMatchObject({ kind: "wait" });
    expect(await logIn("198.51.100.0/24")).toMatchObject({ kind: "wait" });
    // The owner from another network changes it.
    expect(await change("203.0.113.0/24", PASSWORD)).toMatchObject({ kind: "set" });
  }, 60_000);

  it("opens no session for a reset of an account with two-factor on: its log-in asks for a code", async () => {
    const reset = async () =>
      useLink(db.store, {
        token: await issueLink(db.store, "reset", EMAIL, {}, NOW),
        password: "a new unusual password",
        now: NOW,
      });
    expect(await reset()).toMatchObject({ kind: "set", session: { token: expect.any(String) } });
    const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    await db.store.twoFactor.savePending(account.id, secret, new Date(NOW.getTime() + 60_000));
    expect(
      await db.store.twoFactor.turnOn(account.id, {
        secret,
        recoveryHashes: ["a recovery code's hmac"],
        now: NOW,
      }),
    ).toBe(true);
    expect(await reset()).toMatchObject({ kind: "set", session: undefined });
  }, 60_000);
});
