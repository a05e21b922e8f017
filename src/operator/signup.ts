/**
 * Sign-up (docs/accounts.md "Sign-up"): a person names an address and a password; the
 * address is mailed a code; the account exists once the code comes back.
 *
 * A pending sign-up belongs to the browser that started it: the password waits under the
 * HMAC of the address and that browser's form token, and only a confirmation from that
 * browser takes it. A second sign-up for the same address (another browser, a stranger)
 * never changes the code the first was sent, nor the password the first chose: the
 * confirmed account has the password of the person who confirmed it.
 */
import { mailboxOf } from "../core/mailbox.js";
import { hashPassword } from "../service/accounts/account-access.js";
import type { Account, Store } from "../store/index.js";
import { type OpenedSession, openSession } from "./account-sessions.js";
import { accountActor, recordChange } from "./audit.js";
import { CODE_TTL_MS, isCodeShaped, issueCode, secretDigest, spendCode } from "./one-time-secrets.js";
import { passwordProblem } from "./password-policy.js";
import { refusalOf } from "./refusal.js";

type SignupStore = Pick<Store, "accounts" | "transaction" | "audit">;

/** Sends a mail (the adapter decides how: in the background, its failure logged). */
export type SendMail = (to: string, subject: string, body: string) => void;

/** What a browser's sign-up is kept under: the address and the browser's form token. */
function pendingKey(store: SignupStore, email: string, browser: string): Promise<string> {
  return secretDigest(store, `signup ${email} ${browser}`);
}

/** The password's problem, or its hash (always computed: a known address costs what an unknown one does). */
export async function signupPassword(
  password: string,
): Promise<{ kind: "weak"; problem: string } | { kind: "hashed"; passwordHash: string }> {
  const problem = passwordProblem(password);
  if (problem) return { kind: "weak", problem };
  return { kind: "hashed", passwordHash: await hashPassword(password) };
}

/**
 * Starts a sign-up of `email` from `browser`. A mailbox with an account gets nothing (the
 * page answers alike); otherwise the browser's password waits and a code is mailed,
 * unless the address has a live code already (that one stands) or had its mails of the hour.
 */
export async function startSignup(
  store: SignupStore,
  input: { email: string; passwordHash: string; plan: string; browser: string; now: Date },
  mail: SendMail,
): Promise<void> {
  const { email, now } = input;
  if (await store.accounts.findMailbox(mailboxOf(email))) return;
  await store.accounts.savePendingSignup({
    hash: await pendingKey(store, email, input.browser),
    email,
    passwordHash: input.passwordHash,
    plan: input.plan,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
  });
  const code = await issueCode(store, "signup", email, now);
  if (code)
    mail(email, "Your mailrisk code", `Your confirmation code: ${code}\nIt is valid for 15 minutes.\n`);
}

export type SignupConfirmation =
  | { kind: "confirmed"; account: Account; session: OpenedSession; firstKey: string }
  /** Not 8 digits: refused before a try is spent. */
  | { kind: "malformed_code" }
  | { kind: "wrong_code" }
  /** The right code, but this browser started no sign-up of the address. */
  | { kind: "other_browser" }
  | { kind: "exists" };

/** Confirms `browser`'s sign-up of `email` with the mailed code: the account, audited `account.signup`, and a session. */
export async function confirmSignup(
  store: SignupStore,
  input: { email: string; code: string; browser: string; now: Date },
): Promise<SignupConfirmation> {
  const { email, now } = input;
  if (!isCodeShaped(input.code)) return { kind: "malformed_code" };
  if (!(await spendCode(store, "signup", email, input.code, now))) return { kind: "wrong_code" };
  const pending = await store.accounts.takePendingSignup(await pendingKey(store, email, input.browser), now);
  if (!pending) return { kind: "other_browser" };
  const { passwordHash, plan } = pending;
  try {
    return await store.transaction(async (trx) => {
      const { account, secret } = await trx.accounts.createAccount({
        email,
        passwordHash,
        role: "member",
        plan,
        now,
      });
      await recordChange(trx, accountActor(account), {
        action: "account.signup",
        entity: { kind: "account", id: account.id },
        detail: { email, plan },
      });
      const session = await openSession(trx, account, now);
      return { kind: "confirmed" as const, account, session, firstKey: secret };
    });
  } catch (error) {
    if (refusalOf(error)?.code === "account_exists") return { kind: "exists" };
    throw error;
  }
}
