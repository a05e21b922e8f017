/**
 * Quota counting (SPEC §6). One counter row per key and period; counting is a single
 * upsert whose update only happens below the quota, so concurrent requests on any
 * number of instances sharing the database can never count more than the quota.
 * Written as plain SQL (valid in both dialects): it runs on every API request, and
 * Kysely's query builder would cost more than the query itself on SQLite.
 */
import { type Kysely, sql } from "kysely";
import { quotaPeriod } from "./quota-period.js";
import type { Database } from "./schema.js";
import type { AuthenticatedKey, QuotaState } from "./types.js";

export async function consumeQuota(
  db: Kysely<Database>,
  key: AuthenticatedKey,
  now: Date,
): Promise<QuotaState> {
  const period = quotaPeriod(key.createdAt, key.periodDays, now);
  const refused: QuotaState = {
    allowed: false,
    limit: key.quota,
    remaining: 0,
    periodStart: period.start,
    resetAt: period.end,
  };
  // The upsert counts a period's first request unconditionally, so a plan without any
  // quota must never reach it.
  if (key.quota <= 0) return refused;
  const { rows } = await sql<{ used: number }>`
    insert into usage (key_id, period_start, used) values (${key.id}, ${period.start.getTime()}, 1)
    on conflict (key_id, period_start) do update set used = usage.used + 1 where usage.used < ${key.quota}
    returning used`.execute(db);
  const counted = rows[0];
  if (!counted) return refused;
  return { ...refused, allowed: true, remaining: key.quota - counted.used };
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
