/**
 * Quota counting (SPEC §6). One counter row per key and period; counting is a single
 * upsert that counts only for a key not revoked and only while the requests fit in
 * what is left, so concurrent requests on any number of instances sharing the database
 * can never count more than the quota. Written as plain SQL (valid in both dialects):
 * it runs on every API request, and Kysely's query builder would cost more than the
 * query itself on SQLite.
 */
import { type Kysely, sql } from "kysely";
import { type QuotaPeriod, quotaPeriod } from "./quota-period.js";
import type { Database } from "./schema.js";
import type { AuthenticatedKey, QuotaState } from "./types.js";

/**
 * Counts `count` requests at once when all of them fit in what is left of the quota;
 * returns the new count, or undefined when nothing was counted (not enough left, or the
 * key revoked meanwhile — selecting the key makes a revocation by another process count).
 */
async function countRequests(
  db: Kysely<Database>,
  key: AuthenticatedKey,
  period: QuotaPeriod,
  count: number,
): Promise<number | undefined> {
  const { rows } = await sql<{ used: number }>`
    insert into usage (key_id, period_start, used)
    select id, cast(${period.start.getTime()} as bigint), cast(${count} as integer) from api_keys
    where id = ${key.id} and revoked_at is null and cast(${count} as integer) <= ${key.quota}
    on conflict (key_id, period_start) do update set used = usage.used + excluded.used
    where usage.used + excluded.used <= ${key.quota}
    returning used`.execute(db);
  return rows[0]?.used;
}

function quotaState(key: AuthenticatedKey, period: QuotaPeriod, used: number | undefined): QuotaState {
  return {
    allowed: used !== undefined,
    limit: key.quota,
    remaining: used === undefined ? 0 : key.quota - used,
    periodStart: period.start,
    resetAt: period.end,
  };
}

/**
 * Counts `count` requests of one key made at `now`, in order: all with one statement
 * when they fit, else one at a time until the first is refused (the rest are too).
 */
export async function consumeQuotas(
  db: Kysely<Database>,
  key: AuthenticatedKey,
  now: Date,
  count: number,
): Promise<QuotaState[]> {
  const period = quotaPeriod(key.createdAt, key.periodDays, now);
  // A plan without any quota must never reach the upsert (it could insert a first count).
  if (key.quota <= 0) return Array.from({ length: count }, () => quotaState(key, period, undefined));
  if (count > 1) {
    const used = await countRequests(db, key, period, count);
    if (used !== undefined) {
      return Array.from({ length: count }, (_, index) => quotaState(key, period, used - count + 1 + index));
    }
  }
  const states: QuotaState[] = [];
  let refused = false;
  while (states.length < count) {
    const used: number | undefined = refused ? undefined : await countRequests(db, key, period, 1);
    refused = used === undefined;
    states.push(quotaState(key, period, used));
  }
  return states;
}

export async function consumeQuota(
  db: Kysely<Database>,
  key: AuthenticatedKey,
  now: Date,
): Promise<QuotaState> {
  const [state] = await consumeQuotas(db, key, now, 1);
  if (!state) throw new Error("consumeQuotas returned no state");
  return state;
}

export async function refundQuota(
  db: Kysely<Database>,
  key: AuthenticatedKey,
  periodStart: Date,
): Promise<void> {
  await db
    .updateTable("usage")
    .set((eb) => ({ used: eb("used", "-", 1) }))
    .where("key_id", "=", key.id)
    .where("period_start", "=", periodStart.getTime())
    .where("used", ">", 0)
    .execute();
}
