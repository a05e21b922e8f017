/**
 * Pruning for the housekeeping task (docs/api.md "Storage and caching"; the schedule is src/service/housekeeping-schedule.ts).
 * Each call is one delete of at most `limit` rows, found through the indexes of
 * migrations 0002, 0006 and 0010, so no statement holds a lock for long.
 */
import { type Kysely, sql } from "kysely";
import { DAY_MS } from "../core/time.js";
import type { HousekeepingRepository } from "./housekeeping-types.js";
import { pruneJobs } from "./jobs-repository.js";
import { deleteRecordsBatch } from "./records-repository.js";
import type { Database } from "./schema.js";
import { pruneTraffic } from "./traffic-repository.js";

/**
 * Usage rows whose period, by the key's current plan, ended at or before `endedBefore`.
 * Every period lasts at least a day, so only rows that started a day before that can
 * qualify, which lets the period_start index find them.
 */
async function pruneUsage(db: Kysely<Database>, endedBefore: Date, limit: number): Promise<number> {
  const result = await sql`
    delete from usage where (key_id, period_start) in (
      select u.key_id, u.period_start from usage u
      join api_keys k on k.id = u.key_id
      join plans p on p.name = k.plan
      where u.period_start < ${endedBefore.getTime() - DAY_MS}
        and u.period_start + p.period_days * cast(${DAY_MS} as bigint) <= ${endedBefore.getTime()}
      limit ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** Evidence rows no fresh look-up has seen since `seenBefore`, found by migration 0006's index. */
async function pruneEvidence(db: Kysely<Database>, seenBefore: Date, limit: number): Promise<number> {
  const result = await sql`
    delete from infrastructure_evidence where (kind, value, domain) in (
      select kind, value, domain from infrastructure_evidence
      where last_seen < ${seenBefore.getTime()}
      limit ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * Webhook events that finished (delivered or given up) before `finishedBefore`, with
 * their attempts. A finished event's `next_attempt_at` is never before its finish, so
 * the delivery index (status, next_attempt_at) finds them; both deletes name the same
 * ids, in one transaction.
 */
async function pruneWebhookEvents(
  db: Kysely<Database>,
  finishedBefore: Date,
  limit: number,
): Promise<number> {
  const finished = await db
    .selectFrom("webhook_events")
    .select("id")
    .where("status", "in", ["delivered", "failed"])
    .where("next_attempt_at", "<", finishedBefore.getTime())
    .limit(limit)
    .execute();
  const ids = finished.map((row) => row.id);
  if (ids.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom("webhook_attempts").where("event_id", "in", ids).execute();
    const deleted = await trx.deleteFrom("webhook_events").where("id", "in", ids).executeTakeFirst();
    return Number(deleted.numDeletedRows);
  });
}

/**
 * What accounts leave behind (docs/accounts.md): sessions unused since `idleSince`, codes,
 * links, pending sign-ups and log-ins left waiting for their code expired before `now`,
 * mail budgets and failed log-ins counted over a day ago, requests per day
 * and account counts older than `countedBefore`; each table at most `limit` rows.
 */
async function pruneAccountLeftovers(
  db: Kysely<Database>,
  cutoffs: { now: Date; idleSince: Date; countedBefore: Date },
  limit: number,
): Promise<number> {
  const { now, idleSince, countedBefore } = cutoffs;
  const deletes = [
    sql`delete from sessions where hash in (
      select hash from sessions where last_seen_at < ${idleSince.getTime()} limit ${limit})`,
    sql`delete from account_tickets where hash in (
      select hash from account_tickets where expires_at < ${now.getTime()} limit ${limit})`,
    sql`delete from pending_signups where hash in (
      select hash from pending_signups where expires_at < ${now.getTime()} limit ${limit})`,
    sql`delete from mail_budget where mailbox in (
      select mailbox from mail_budget where window_start < ${now.getTime() - DAY_MS} limit ${limit})`,
    sql`delete from login_throttle where subject in (
      select subject from login_throttle where window_start < ${now.getTime() - DAY_MS} limit ${limit})`,
    sql`delete from pending_logins where hash in (
      select hash from pending_logins where expires_at < ${now.getTime()} limit ${limit})`,
    sql`delete from daily_usage where (key_id, day) in (
      select key_id, day from daily_usage where day < ${countedBefore.getTime()} limit ${limit})`,
    sql`delete from account_daily_usage where (account_id, day) in (
      select account_id, day from account_daily_usage where day < ${countedBefore.getTime()} limit ${limit})`,
    sql`delete from account_usage where (account_id, period_start) in (
      select account_id, period_start from account_usage where period_start < ${countedBefore.getTime()} limit ${limit})`,
  ];
  let deleted = 0;
  for (const statement of deletes) deleted += Number((await statement.execute(db)).numAffectedRows ?? 0n);
  return deleted;
}

export function createHousekeepingRepository(db: Kysely<Database>): HousekeepingRepository {
  return {
    pruneUsage: (endedBefore, limit) => pruneUsage(db, endedBefore, limit),
    pruneRecords: (checkedBefore, limit) => deleteRecordsBatch(db, checkedBefore, limit),
    pruneEvidence: (seenBefore, limit) => pruneEvidence(db, seenBefore, limit),
    pruneWebhookEvents: (finishedBefore, limit) => pruneWebhookEvents(db, finishedBefore, limit),
    pruneAccountLeftovers: (cutoffs, limit) => pruneAccountLeftovers(db, cutoffs, limit),
    pruneJobs: (now, abandonedBefore, limit) => pruneJobs(db, now, abandonedBefore, limit),
    pruneTraffic: (before, limit) => pruneTraffic(db, before, limit),
  };
}
