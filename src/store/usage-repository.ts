/**
 * The usage repository: the store's part of every API request (docs/api.md "Keys, plans, quotas"). The key
 * for a secret, then its units counted. Keys are remembered by the hash of their secret
 * for KNOWN_KEY_TTL_MS of the requests' clock (the `now` each is counted at): what authentication reads of them (id, plan, quota, period,
 * creation) changes only when an operator moves the key or changes its plan, which the
 * server whose admin API made the change forgets at once (`forgetKeys`, every worker) and
 * other instances within that time. The quota
 * upsert itself refuses a revoked key. Requests of one key arriving together are
 * counted by one statement (quota-batch.ts). So a request costs at most one statement,
 * and a revocation still takes effect at once in every instance sharing the database.
 * The origins of live publishable keys (for preflights, which carry no key) are
 * remembered the same way: read at most once per KNOWN_KEY_TTL_MS, forgotten with the keys.
 */
import { type Kysely, sql } from "kysely";
import { LRUCache } from "lru-cache";
import { hashOf } from "../core/key-formats.js";
import { AccountSuspendedError } from "../core/refusals.js";
import { DAY_MS } from "../core/time.js";
import { toDate } from "./columns.js";
import {
  authenticateHash,
  authenticateId,
  isRevoked,
  keyWithPlan,
  publishableOrigins,
} from "./keys-repository.js";
import {
  accountOfUsageRow,
  accountUsageRow,
  countAccountUnits,
  countUnits,
  readQuota,
  storedPeriods,
} from "./quota.js";
import { batchQuotaCounting } from "./quota-batch.js";
import { counterOf, giveBackUnits, noteGivenBack } from "./quota-give-back.js";
import { QuotaSettlements, receiptToken, writesReceipts } from "./quota-receipts.js";
import type { Database } from "./schema.js";
import type { AuthenticatedKey, KeyUsage, UsageRepository } from "./usage-types.js";

/** Keys remembered per instance; one entry is a few hundred bytes. */
const KNOWN_KEYS = 10_000;
/** How long another instance's move of a key or change of a plan may go unseen. */
export const KNOWN_KEY_TTL_MS = 30_000;

function checkUnits(units: number, least: number): void {
  if (!Number.isInteger(units) || units < least) {
    throw new RangeError(`units must be a whole number of at least ${least}, not ${units}`);
  }
}

async function keyUsage(db: Kysely<Database>, id: string, now: Date): Promise<KeyUsage | undefined> {
  const key = await keyWithPlan(db, id);
  if (!key) return undefined;
  const [current, periods] = await Promise.all([readQuota(db, key, now), storedPeriods(db, key)]);
  const { quota, periodDays, account: _account, ...apiKey } = key;
  return { key: apiKey, plan: { name: key.plan, quota, periodDays }, current, periods };
}

export interface KeyRememberingUsageRepository extends UsageRepository {
  /** Forgets every remembered key: the next request of each reads its key and plan again. */
  forgetKeys(): void;
}

export function createUsageRepository(db: Kysely<Database>): KeyRememberingUsageRepository {
  // Each key with the time (ms, on the requests' clock) until which it is trusted.
  const known = new LRUCache<string, { key: AuthenticatedKey; until: number }>({ max: KNOWN_KEYS });
  const remember = (hash: string, key: AuthenticatedKey, now: Date) =>
    known.set(hash, { key, until: now.getTime() + KNOWN_KEY_TTL_MS });
  const recall = (hash: string, now: Date): AuthenticatedKey | undefined => {
    const entry = known.get(hash);
    return entry !== undefined && entry.until > now.getTime() ? entry.key : undefined;
  };
  // Give-backs the database did not take yet (a count or refund whose answer was lost).
  const settlements = new QuotaSettlements(db);
  // Requests per key (or account row) and day since the last flush: map updates on the answer path, written later.
  let daily = new Map<string, Map<number, number>>();
  /** Adds counted units to the row's requests on the day of `now`. */
  const addDaily = (row: string, now: Date, units: number) => {
    const day = now.getTime() - (now.getTime() % DAY_MS);
    let days = daily.get(row);
    if (days === undefined) {
      days = new Map();
      daily.set(row, days);
    }
    days.set(day, (days.get(day) ?? 0) + units);
  };
  // One statement per key and turn; the turn's allowed units go to the key's requests of the day at once.
  const quotaBatch = batchQuotaCounting(async (key, now, units) => {
    const states = await countUnits(db, key, now, units, settlements);
    const allowed = units.reduce((sum, n, index) => (states[index]?.allowed ? sum + n : sum), 0);
    if (allowed > 0) addDaily(key.id, now, allowed);
    return states;
  });
  /** The key for a hash when it is remembered and its account not suspended. */
  const rememberedKey = (hash: string, now: Date): AuthenticatedKey | undefined => {
    const key = recall(hash, now);
    return key?.account?.suspended ? undefined : key;
  };
  /**
   * The key for a hash: remembered, else read (and remembered once, so its time to live is
   * not restarted); a suspended account's key is refused (`AccountSuspendedError`).
   */
  const liveKey = async (hash: string, now: Date): Promise<AuthenticatedKey | undefined> => {
    let key = recall(hash, now);
    if (!key) {
      key = await authenticateHash(db, hash, now);
      if (key) remember(hash, key, now);
    }
    if (key?.account?.suspended) throw new AccountSuspendedError();
    return key;
  };
  // The origins of live publishable keys, one read shared by the requests waiting for it.
  let origins: { set: Promise<Set<string>>; until: number } | undefined;
  const originsAt = (now: Date): Promise<Set<string>> => {
    if (origins === undefined || origins.until <= now.getTime()) {
      const set = publishableOrigins(db).then((list) => new Set(list));
      origins = { set, until: now.getTime() + KNOWN_KEY_TTL_MS };
      const reading = origins;
      set.catch(() => {
        if (origins === reading) origins = undefined;
      });
    }
    return origins.set;
  };
  return {
    async authorize(secret, now, units = 1) {
      checkUnits(units, 0);
      const hash = hashOf(secret);
      if (units === 0) {
        // Nothing counted: read the key afresh, so what is reported is what is stored.
        const key = await authenticateHash(db, hash, now);
        if (!key) return undefined;
        remember(hash, key, now);
        if (key.account?.suspended) throw new AccountSuspendedError();
        return { key, quota: await readQuota(db, key, now) };
      }
      // A remembered key is taken at once: the hot path waits only for its count.
      const key = rememberedKey(hash, now) ?? (await liveKey(hash, now));
      if (!key) return undefined;
      const quota = await quotaBatch.count(key, now, units);
      if (!quota.allowed && (await isRevoked(db, key.id, now))) {
        known.delete(hash);
        return undefined;
      }
      return { key, quota };
    },
    async authorizeKey(id, now, units) {
      checkUnits(units, 0);
      // Read afresh, never remembered: the console asks rarely, and a revocation holds at once.
      const key = await authenticateId(db, id, now);
      if (!key) return undefined;
      if (key.account?.suspended) throw new AccountSuspendedError();
      return {
        key,
        quota: units === 0 ? await readQuota(db, key, now) : await quotaBatch.count(key, now, units),
      };
    },
    async authorizeAccount(id, now, units) {
      checkUnits(units, 0);
      const quota = await countAccountUnits(db, id, now, units);
      if (quota?.allowed && units > 0) addDaily(accountUsageRow(id), now, units);
      return quota;
    },
    async refund(key, periodStart, units = 1, now = new Date()) {
      checkUnits(units, 1);
      const owner = { id: key.id, accountId: key.account?.id ?? null };
      const row = counterOf(owner);
      if (!row) return;
      // With a token the refund lands once, however often it is tried; while the database
      // is unreachable it waits in `settlements` (the requests per day then keep the units).
      const token = writesReceipts(db) ? receiptToken() : undefined;
      const given = await settlements.attempt(() => giveBackUnits(db, row, periodStart, units, token));
      if (given) await noteGivenBack(db, owner, units, now);
    },
    settleQuota: () => settlements.retry(),
    findKey: (secret, now) => liveKey(hashOf(secret), now),
    rememberedKey: (secret, now) => rememberedKey(secret.hash, now),
    countRemembered: (request) => quotaBatch.add(request),
    isPublishableOrigin: async (origin, now) => (await originsAt(now)).has(origin),
    keyUsage: (id, now) => keyUsage(db, id, now),
    async flushDailyUsage() {
      if (daily.size === 0) return;
      const keyRows: { key_id: string; day: number; used: number }[] = [];
      const accountRows: { account_id: string; day: number; used: number }[] = [];
      for (const [row, days] of daily) {
        const account = accountOfUsageRow(row);
        for (const [day, used] of days) {
          if (account === undefined) keyRows.push({ key_id: row, day, used });
          else accountRows.push({ account_id: account, day, used });
        }
      }
      daily = new Map();
      if (keyRows.length > 0)
        await db
          .insertInto("daily_usage")
          .values(keyRows)
          .onConflict((oc) =>
            oc.columns(["key_id", "day"]).doUpdateSet({ used: sql`daily_usage.used + excluded.used` }),
          )
          .execute();
      if (accountRows.length > 0)
        await db
          .insertInto("account_daily_usage")
          .values(accountRows)
          .onConflict((oc) =>
            oc
              .columns(["account_id", "day"])
              .doUpdateSet({ used: sql`account_daily_usage.used + excluded.used` }),
          )
          .execute();
    },
    async dailyUsage(keyIds, since) {
      if (keyIds.length === 0) return [];
      const from = since.getTime() - (since.getTime() % DAY_MS);
      const accounts = keyIds.flatMap((row) => accountOfUsageRow(row) ?? []);
      const keys = keyIds.filter((row) => accountOfUsageRow(row) === undefined);
      const keyDays =
        keys.length === 0
          ? []
          : await db
              .selectFrom("daily_usage")
              .select(["key_id", "day", "used"])
              .where("key_id", "in", keys)
              .where("day", ">=", from)
              .execute();
      const accountDays =
        accounts.length === 0
          ? []
          : await db
              .selectFrom("account_daily_usage")
              .select(["account_id", "day", "used"])
              .where("account_id", "in", accounts)
              .where("day", ">=", from)
              .execute();
      return [
        ...keyDays.map((row) => ({ keyId: row.key_id, day: toDate(row.day), used: row.used })),
        ...accountDays.map((row) => ({
          keyId: accountUsageRow(row.account_id),
          day: toDate(row.day),
          used: row.used,
        })),
      ].sort((a, b) => a.day.getTime() - b.day.getTime());
    },
    forgetKeys: () => {
      known.clear();
      origins = undefined;
    },
  };
}
