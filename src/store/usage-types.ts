/**
 * Quota counting and key usage: the repository's contract and rows, implemented in
 * src/store/usage-repository.ts.
 */
import type { HashedSecret } from "../core/key-formats.js";
import type { ApiKey } from "./keys-types.js";
import type { Plan } from "./plans-types.js";

/** A key as authentication sees it: with its plan, and its account's count and state when it has one. */
export interface AuthenticatedKey extends ApiKey {
  /** The plan's quota; null: unlimited. */
  quota: number | null;
  periodDays: number;
  /** The account whose one count the key draws from (period anchored at its creation); null: the key's own. */
  account: { id: string; createdAt: Date; suspended: boolean } | null;
}

export interface QuotaState {
  /** Whether this request was counted (false: quota used up, answer 429). */
  allowed: boolean;
  /** The plan's quota; null: unlimited. */
  limit: number | null;
  /** Requests left in the period after this one; null: unlimited. */
  remaining: number | null;
  /** Requests counted in the period, this one included. */
  used: number;
  /** Start of the current period (anchored at the key's creation). */
  periodStart: Date;
  /** When the current period ends and the quota resets. */
  resetAt: Date;
}

/** An API request's key and the outcome of counting it. */
export interface Authorization {
  key: AuthenticatedKey;
  quota: QuotaState;
}

/**
 * One request waiting for its count with the other requests of its turn (`countRemembered`,
 * and `authorize` underneath): told its state once counted, allowed or refused, or the
 * error of a count that failed. A plain object with two methods, so that the hot path
 * waits without a promise; neither may throw (the requests counted with it are told
 * theirs in the same loop).
 */
export interface WaitingCount {
  readonly key: AuthenticatedKey;
  readonly now: Date;
  /** The units it costs, a whole number ≥ 1. */
  readonly units: number;
  counted(state: QuotaState): void;
  failed(error: unknown): void;
}

/** Quota counting (docs/api.md "Keys, plans, quotas"): the store's part of every API request. */
export interface UsageRepository {
  /**
   * The key for a secret, then `units` (default 1, a whole number ≥ 1) counted against its
   * quota, exactly across instances: all of them when that many are left, else none
   * (`quota.allowed` false). Undefined when the secret is unknown or its key revoked.
   * `units` 0 counts nothing: the key and its plan are read afresh and the state of the
   * current period is returned (`allowed` true), as `GET /v2/usage` answers it.
   */
  authorize(secret: string | HashedSecret, now: Date, units?: number): Promise<Authorization | undefined>;
  /**
   * As `authorize`, for a live key named by its id (the console's list uploads, which
   * hold no secret); the key is read afresh. Undefined when unknown, revoked or past its end.
   */
  authorizeKey(id: string, now: Date, units: number): Promise<Authorization | undefined>;
  /**
   * As `authorizeKey`, on an account's own count with no key (the console's list
   * uploads): the state after counting, undefined for an unknown account; a suspended one
   * throws `AccountSuspendedError`.
   */
  authorizeAccount(id: string, now: Date, units: number): Promise<QuotaState | undefined>;
  /**
   * The live key for a secret, counting nothing (a publishable key's origins are checked
   * before its request counts); remembered like `authorize`'s keys.
   */
  findKey(secret: string | HashedSecret, now: Date): Promise<AuthenticatedKey | undefined>;
  /**
   * The live key of a hashed secret when it is remembered (`authorize` or `findKey` read
   * it within the time keys are trusted), at once, reading nothing and counting nothing;
   * undefined when it is not remembered or its account is suspended (`authorize` then
   * reads it, or refuses it).
   */
  rememberedKey(secret: HashedSecret, now: Date): AuthenticatedKey | undefined;
  /**
   * Counts a request of a key `rememberedKey` gave, as `authorize` counts it (with the
   * other requests of this turn, exactly across instances), and tells `request` its
   * state or the error: the hot path's count, with no promise. A refused count is not
   * looked into further (whether the key was revoked meanwhile is `authorize`'s to say).
   */
  countRemembered(request: WaitingCount): void;
  /** Whether some live publishable key lists this normalised origin; remembered like the keys. */
  isPublishableOrigin(origin: string, now: Date): Promise<boolean>;
  /**
   * Gives back `units` (default 1) counted in a period (used when the answer turned out a
   * 5xx); the requests per day lose them on the day of `now` (default: the present).
   */
  refund(key: AuthenticatedKey, periodStart: Date, units?: number, now?: Date): Promise<void>;
  /**
   * Tries again the give-backs the database did not take (a count or a refund whose
   * outcome a lost connection hid; docs/http.md "When the database dies mid-request"),
   * and prunes old receipts; the server calls it every second.
   */
  settleQuota(): Promise<void>;
  /** Writes the requests per key and day counted since the last call (charts only; the quota count is exact already). */
  flushDailyUsage(): Promise<void>;
  /** Requests per key and UTC day of these keys, from `since` on; written by `flushDailyUsage`. */
  dailyUsage(keyIds: readonly string[], since: Date): Promise<{ keyId: string; day: Date; used: number }[]>;
  /** A key's usage for the admin API and `keys show`: never counts; undefined for an unknown id. */
  keyUsage(id: string, now: Date): Promise<KeyUsage | undefined>;
}

/** A key with its plan, its current period and the periods still stored, newest first. */
export interface KeyUsage {
  key: ApiKey;
  plan: Plan;
  /** The current period, read without counting (`allowed` true). */
  current: QuotaState;
  /** Every stored period of the key (the current one included when counted), newest first. */
  periods: { periodStart: Date; used: number }[];
}
