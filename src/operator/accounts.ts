/**
 * Accounts (docs/accounts.md): the operator's list (and search), show, plan, suspend,
 * resume, delete, invite and reset link, and the key a console upload belongs to (what an
 * account does with its own keys is account-keys.ts). Every function that changes an
 * account returns the account as changed: the audit log's hook.
 */
import { type Static, Type } from "typebox";
import type { Config } from "../config.js";
import { mailboxOf } from "../core/mailbox.js";
import { formatTimestamp } from "../core/record.js";
import { Timestamp } from "../core/schema-types.js";
import { normaliseEmail } from "../service/accounts/account-access.js";
import { createMailer, type Mailer } from "../service/accounts/mailer.js";
import type { Account, AccountRole, Store } from "../store/index.js";
import { type Actor, audited, recordChange } from "./audit.js";
import { accountJobsFollow } from "./jobs.js";
import { KeySchema, keyJson, PlanName } from "./keys.js";
import { issueLink, LINK_TTL_MS, mailBudget } from "./one-time-secrets.js";
import { Refusal } from "./refusal.js";

export const AccountSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Type.Union([Type.Literal("member"), Type.Literal("operator")]),
  plan: Type.String(),
  state: Type.Union([Type.Literal("active"), Type.Literal("suspended")]),
  created_at: Timestamp,
});
export type AccountJson = Static<typeof AccountSchema>;

export const AccountWithKeysSchema = Type.Object({
  ...AccountSchema.properties,
  keys: Type.Array(KeySchema),
  list_entries: Type.Integer({
    minimum: 0,
    description: "The entries of the account's own allow and block list (the account keeps them itself).",
  }),
  two_factor: Type.Boolean({
    description:
      "Whether log-in asks for a code of an authenticator app after the password (`mailrisk accounts reset-2fa` turns it off).",
  }),
});
export type AccountWithKeys = Static<typeof AccountWithKeysSchema>;

export const OneTimeLinkSchema = Type.Object({
  email: Type.String(),
  url: Type.String({ description: "The one-time link where the person sets a password." }),
  expires_at: Timestamp,
  mailed: Type.Boolean({ description: "Whether the link was mailed too (SMTP_URL set)." }),
});
export type OneTimeLink = Static<typeof OneTimeLinkSchema>;

export const InviteBody = Type.Object({
  email: Type.String({ maxLength: 254 }),
  plan: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  operator: Type.Optional(Type.Boolean({ description: "The account gets the `operator` role." })),
});
export const AccountParams = Type.Object({
  account: Type.String({ description: "The account's id or email." }),
});
export const AccountPlanBody = Type.Object({ plan: PlanName });
/** The list's search as query parameters, for every surface that takes it. */
export const AccountSearchFields = {
  search: Type.Optional(
    Type.String({ maxLength: 254, description: "Only the accounts whose email contains this text." }),
  ),
};

/** Accounts the list shows at most, newest first. */
export const MAX_ACCOUNTS_SHOWN = 1000;

type AccountStore = Pick<Store, "accounts" | "keys" | "transaction" | "audit">;

/** Where the links point: PUBLIC_URL, else a path to put after the server's address. */
export interface LinkContext {
  /** SIGNUP: with `off` no page takes a link, so none is made (`signup_closed`). */
  signup: "off" | "invite" | "open";
  publicUrl: string | null;
  signupPlan: string;
  mailer: Mailer | undefined;
}

/** The links' context of a configuration: its SIGNUP, PUBLIC_URL, SIGNUP_PLAN and mailer. */
export function linkContextOf(
  config: Pick<Config, "signup" | "publicUrl" | "signupPlan" | "smtpUrl" | "mailFrom">,
): LinkContext {
  const { signup, publicUrl, signupPlan } = config;
  return { signup, publicUrl, signupPlan, mailer: createMailer(config) };
}

export function accountJson(account: Account): AccountJson {
  return {
    id: account.id,
    email: account.email,
    role: account.role,
    plan: account.plan,
    state: account.state,
    created_at: formatTimestamp(account.createdAt),
  };
}

/** Whether two-factor is on for the account. */
export async function twoFactorOn(store: Pick<Store, "twoFactor">, account: Account): Promise<boolean> {
  return (await store.twoFactor.findSecret(account.id)) !== undefined;
}

/** The account of an id or an email; `unknown_account` otherwise. */
export async function findAccount(store: Pick<Store, "accounts">, which: string): Promise<Account> {
  const email = normaliseEmail(which);
  const account = email ? await store.accounts.findLogin(email) : await store.accounts.getAccount(which);
  if (!account) throw new Refusal("unknown_account", `unknown account "${which}"`);
  return account;
}

/** The newest accounts (at most MAX_ACCOUNTS_SHOWN), those whose email contains `search` when given. */
export async function listAccounts(store: AccountStore, search?: string): Promise<AccountJson[]> {
  const filter = { search: search?.trim() || null, limit: MAX_ACCOUNTS_SHOWN };
  return (await store.accounts.listAccounts(filter)).map(accountJson);
}

/** The account with its keys, the size of its own list (whose entries are the account's to see) and whether two-factor is on. */
export async function showAccount(
  store: AccountStore & Pick<Store, "accountLists" | "twoFactor">,
  which: string,
): Promise<AccountWithKeys> {
  const account = await findAccount(store, which);
  const [keys, listEntries, twoFactor] = await Promise.all([
    store.keys.accountKeys(account.id),
    store.accountLists.countEntries(account.id),
    twoFactorOn(store, account),
  ]);
  return {
    ...accountJson(account),
    keys: keys.map(keyJson),
    list_entries: listEntries,
    two_factor: twoFactor,
  };
}

/** Suspends (its keys answer 401 `account_suspended`, its sessions end) or resumes an account. */
export async function setAccountState(
  store: AccountStore,
  which: string,
  state: "active" | "suspended",
  actor: Actor,
): Promise<AccountJson> {
  const change = async (trx: Store) => {
    const account = await findAccount(trx, which);
    // Suspending a suspended account (resuming an active one) changes nothing and records nothing.
    if (account.state === state) return { account: accountJson(account), changed: false };
    const changed = accountJson(await trx.accounts.setState(account.id, state));
    await accountJobsFollow(trx, account.id, state === "suspended" ? "suspend" : "resume");
    return { account: changed, changed: true };
  };
  const changed = await audited(store, actor, change, ({ account: { id, email }, changed }) =>
    changed
      ? {
          action: state === "suspended" ? "account.suspend" : "account.resume",
          entity: { kind: "account", id },
          detail: { email },
        }
      : undefined,
  );
  return changed.account;
}

/** Moves the account and its keys to a plan: they count against it at once (`unknown_plan` otherwise). */
export function setAccountPlan(
  store: AccountStore,
  which: string,
  plan: string,
  actor: Actor,
): Promise<AccountJson> {
  const change = async (trx: Store) => {
    const account = await findAccount(trx, which);
    return accountJson(await trx.accounts.setPlan(account.id, plan));
  };
  return audited(store, actor, change, ({ id, email }) => ({
    action: "account.set_plan",
    entity: { kind: "account", id },
    detail: { email, plan },
  }));
}

/** Deletes an account with its keys, counts and sessions; returns it as it was. */
export function deleteAccount(store: AccountStore, which: string, actor: Actor): Promise<AccountJson> {
  const change = async (trx: Store) => {
    const account = await findAccount(trx, which);
    await accountJobsFollow(trx, account.id, "delete");
    await trx.accounts.deleteAccount(account.id);
    return accountJson(account);
  };
  return audited(store, actor, change, ({ id, email }) => ({
    action: "account.delete",
    entity: { kind: "account", id },
    detail: { email },
  }));
}

async function oneTimeLink(
  store: AccountStore,
  kind: "invite" | "reset",
  email: string,
  payload: { plan?: string; role?: AccountRole },
  context: LinkContext,
  now: Date,
): Promise<OneTimeLink> {
  if (context.signup === "off")
    throw new Refusal(
      "signup_closed",
      "SIGNUP is off: no page takes the link; set SIGNUP=invite (or open) first",
    );
  const token = await issueLink(store, kind, email, payload, now);
  const url = `${context.publicUrl ?? ""}/invite/${token}`;
  const subject = kind === "invite" ? "Your mailrisk account" : "Set a new mailrisk password";
  // The link is printed either way; it is mailed while the address has mails left this hour.
  const mailed = context.mailer !== undefined && (await mailBudget(store, email, now)).allowed;
  if (mailed) await context.mailer?.send(email, subject, `Set your password here within 7 days:\n\n${url}\n`);
  const expires = new Date(now.getTime() + LINK_TTL_MS);
  return { email, url, expires_at: formatTimestamp(expires), mailed };
}

/** A one-time link (7 days) where the invited person sets a password; the account exists then. */
export async function inviteAccount(
  store: AccountStore & Pick<Store, "plans">,
  body: Static<typeof InviteBody>,
  context: LinkContext,
  now: Date,
  actor: Actor,
): Promise<OneTimeLink> {
  const email = normaliseEmail(body.email);
  if (!email) throw new Refusal("invalid_email", `"${body.email}" is not an email address`);
  if (await store.accounts.findMailbox(mailboxOf(email)))
    throw new Refusal(
      "account_exists",
      `an account for ${email} (or another address of its mailbox) exists already`,
    );
  const plan = body.plan ?? context.signupPlan;
  if (!(await store.plans.getPlan(plan))) throw new Refusal("unknown_plan", `unknown plan "${plan}"`);
  const role = body.operator ? "operator" : "member";
  const link = await oneTimeLink(store, "invite", email, { plan, role }, context, now);
  await recordChange(store, actor, {
    action: "account.invite",
    entity: { kind: "account", id: null },
    detail: { email, plan, role },
  });
  return link;
}

/** A one-time link (7 days) where the account's owner sets a new password. */
export async function resetPasswordLink(
  store: AccountStore,
  which: string,
  context: LinkContext,
  now: Date,
  actor: Actor,
): Promise<OneTimeLink> {
  const account = await findAccount(store, which);
  const link = await oneTimeLink(store, "reset", account.email, {}, context, now);
  await recordChange(store, actor, {
    action: "account.reset_password",
    entity: { kind: "account", id: account.id },
    detail: { email: account.email },
  });
  return link;
}
