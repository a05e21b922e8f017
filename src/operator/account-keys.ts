/**
 * What an account does with its own keys in its console (docs/accounts.md "The console"):
 * list, create, roll and revoke them (each audited with the account as the actor, in the
 * change's transaction), and see their usage and reports. A key of another account is
 * `unknown_key`, as an unknown id.
 */
import { DAY_MS } from "../core/time.js";
import type { Account, Store } from "../store/index.js";
import { accountUsageRow } from "../store/quota.js";
import { type Actor, accountActor, audited } from "./audit.js";
import { keyUsage } from "./key-usage.js";
import { type CreatedKey, createdKeyJson, keyJson, revokeKey } from "./keys.js";
import { Refusal } from "./refusal.js";
import { REPORTS_SHOWN } from "./reports.js";

/** A key's name, as the admin API's body bounds it. */
const MAX_KEY_NAME = 200;
/** Keys one account may have, revoked ones not counted. */
export const MAX_ACCOUNT_KEYS = 20;

type AccountStore = Pick<Store, "accounts" | "keys" | "transaction" | "audit">;

/** A key of this account; a key of another account, or of none, is `unknown_key` (a 404), as an unknown id. */
async function ownKey(store: AccountStore, account: Account, id: string) {
  const key = await store.keys.getKey(id);
  if (!key || key.accountId !== account.id) throw new Refusal("unknown_key", `unknown key "${id}"`);
  return key;
}

export async function accountKeys(store: AccountStore, account: Account) {
  return (await store.keys.accountKeys(account.id)).map(keyJson);
}

/** A new key of the account on its plan; at most MAX_ACCOUNT_KEYS live ones (`too_many_keys`); audited `key.create`. */
export async function createAccountKey(
  store: AccountStore,
  account: Account,
  input: { name: string | null; publishable: boolean; origins: string[] },
  now: Date,
  actor: Actor = accountActor(account),
): Promise<CreatedKey> {
  if ((input.name?.length ?? 0) > MAX_KEY_NAME)
    throw new Refusal("invalid_body", `a key's name has at most ${MAX_KEY_NAME} characters`);
  const create = async (trx: Store) => {
    const live = (await trx.keys.accountKeys(account.id)).filter((key) => key.revokedAt === null);
    if (live.length >= MAX_ACCOUNT_KEYS)
      throw new Refusal("too_many_keys", `an account has at most ${MAX_ACCOUNT_KEYS} keys; revoke one first`);
    const { key, secret } = await trx.keys.createKey({
      plan: account.plan,
      now,
      accountId: account.id,
      ...input,
    });
    return createdKeyJson(key, secret);
  };
  return audited(store, actor, create, ({ id, plan, prefix, name, publishable, origins }) => ({
    action: "key.create",
    entity: { kind: "key", id },
    detail: { account: account.email, plan, prefix, name, publishable, origins },
  }));
}

/** How long a rolled key keeps working beside its successor. */
export const ROLL_GRACE_MS = DAY_MS;

/** A new secret in the key's place; the old one works ROLL_GRACE_MS more; audited `key.roll`. */
export async function rollAccountKey(
  store: AccountStore,
  account: Account,
  id: string,
  now: Date,
  actor: Actor = accountActor(account),
): Promise<CreatedKey> {
  await ownKey(store, account, id);
  const roll = async (trx: Store) => {
    const { key, secret } = await trx.keys.rollKey(id, now, new Date(now.getTime() + ROLL_GRACE_MS));
    return createdKeyJson(key, secret);
  };
  return audited(store, actor, roll, (rolled) => ({
    action: "key.roll",
    entity: { kind: "key", id },
    detail: { account: account.email, successor: rolled.id, prefix: rolled.prefix },
  }));
}

export async function revokeAccountKey(store: AccountStore, account: Account, id: string, now: Date) {
  await ownKey(store, account, id);
  return revokeKey(store, id, now, accountActor(account));
}

/** The reports the account's keys filed, newest first (at most REPORTS_SHOWN). */
export async function accountReports(store: Pick<Store, "reports">, account: Account) {
  return store.reports.accountReports(account.id, REPORTS_SHOWN);
}

/** One key of the account with its usage (the account's count). */
export async function accountKeyUsage(
  store: AccountStore & Pick<Store, "usage">,
  account: Account,
  id: string,
  now: Date,
) {
  await ownKey(store, account, id);
  return keyUsage(store, id, now);
}

/**
 * The account's own row of the charts (its console uploads, counted on no key), beside its
 * keys' ids: with them, a period's days add up to the account's count.
 */
export function accountOwnUsage(account: Account): string {
  return accountUsageRow(account.id);
}

/**
 * Requests per key and day of the account's `keyIds` since `from`, for the console's charts;
 * this instance's uses of the last second are written out first, so the chart agrees with the quota.
 */
export async function accountDailyUsage(
  store: Pick<Store, "usage">,
  keyIds: readonly string[],
  from: Date,
): Promise<{ keyId: string; day: Date; used: number }[]> {
  await store.usage.flushDailyUsage();
  return store.usage.dailyUsage(keyIds, from);
}
