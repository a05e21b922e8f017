/**
 * The traffic counters (docs/console.md "Traffic"): what every instance counted in memory,
 * added to one row per UTC day, kind and name by additive upserts, and read back by day
 * for the desk's charts, `GET /admin/stats` and `mailrisk stats`. The busiest keys and
 * accounts are read from the requests per key and day (`daily_usage`), which the quota's
 * counting already writes and a refund lowers on the day it is given, and an account's
 * own units (console uploads) from `account_daily_usage`.
 */
import { type Kysely, sql } from "kysely";
import { toDate } from "./columns.js";
import type { Database } from "./schema.js";
import type { TrafficCount, TrafficKind, TrafficRepository } from "./traffic-types.js";

/** Rows per statement: 4 values each, far below SQLite's bound on placeholders. */
const ROWS_PER_STATEMENT = 500;

/** Adds the counts, all or none (several statements share a transaction). */
async function addCounts(db: Kysely<Database>, counts: readonly TrafficCount[]): Promise<void> {
  if (counts.length > ROWS_PER_STATEMENT) {
    await db.transaction().execute((trx) => addChunks(trx, counts));
  } else await addChunks(db, counts);
}

async function addChunks(db: Kysely<Database>, counts: readonly TrafficCount[]): Promise<void> {
  for (let at = 0; at < counts.length; at += ROWS_PER_STATEMENT) {
    const rows = counts.slice(at, at + ROWS_PER_STATEMENT).map((count) => ({
      day: count.day.getTime(),
      kind: count.kind,
      name: count.name,
      count: count.count,
    }));
    await db
      .insertInto("traffic_counts")
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(["day", "kind", "name"])
          .doUpdateSet({ count: sql`traffic_counts.count + excluded.count` }),
      )
      .execute();
  }
}

async function dailyCounts(
  db: Kysely<Database>,
  kinds: readonly TrafficKind[],
  since: Date,
): Promise<TrafficCount[]> {
  const rows = await db
    .selectFrom("traffic_counts")
    .select(["day", "kind", "name", "count"])
    .where("day", ">=", since.getTime())
    .where("kind", "in", kinds)
    .orderBy("day")
    .orderBy("kind")
    .orderBy("name")
    .execute();
  return rows.map((row) => ({
    day: toDate(row.day),
    kind: row.kind as TrafficKind,
    name: row.name,
    count: Number(row.count),
  }));
}

async function topNames(
  db: Kysely<Database>,
  kind: TrafficKind,
  since: Date,
  limit: number,
): Promise<{ name: string; count: number }[]> {
  const { rows } = await sql<{ name: string; total: number | string }>`
    select name, sum(count) as total from traffic_counts
    where day >= ${since.getTime()} and kind = ${kind}
    group by name order by total desc, name limit ${limit}`.execute(db);
  return rows.map((row) => ({ name: row.name, count: Number(row.total) }));
}

async function topKeys(db: Kysely<Database>, since: Date, limit: number) {
  const { rows } = await sql<{
    id: string;
    prefix: string;
    name: string | null;
    account_id: string | null;
    revoked_at: number | string | null;
    total: number | string;
  }>`
    select k.id, k.prefix, k.name, k.account_id, k.revoked_at, u.total from (
      select key_id, sum(used) as total from daily_usage where day >= ${since.getTime()}
      group by key_id) u
    join api_keys k on k.id = u.key_id
    where u.total > 0
    order by u.total desc, k.id limit ${limit}`.execute(db);
  return rows.map((row) => ({
    keyId: row.id,
    prefix: row.prefix,
    name: row.name,
    accountId: row.account_id,
    revoked: row.revoked_at !== null,
    used: Number(row.total),
  }));
}

async function topAccounts(db: Kysely<Database>, since: Date, limit: number) {
  const { rows } = await sql<{ id: string; email: string; total: number | string }>`
    select a.id, a.email, sum(u.used) as total from (
      select k.account_id, d.day, d.used from daily_usage d join api_keys k on k.id = d.key_id
      union all
      select account_id, day, used from account_daily_usage) u
    join accounts a on a.id = u.account_id
    where u.day >= ${since.getTime()}
    group by a.id, a.email
    having sum(u.used) > 0
    order by total desc, a.id limit ${limit}`.execute(db);
  return rows.map((row) => ({ accountId: row.id, email: row.email, used: Number(row.total) }));
}

/** Counters of days before `before`, at most `limit` rows (housekeeping). */
export async function pruneTraffic(db: Kysely<Database>, before: Date, limit: number): Promise<number> {
  const { numAffectedRows } = await sql`delete from traffic_counts where (day, kind, name) in (
    select day, kind, name from traffic_counts where day < ${before.getTime()} limit ${limit})`.execute(db);
  return Number(numAffectedRows ?? 0n);
}

export function createTrafficRepository(db: Kysely<Database>): TrafficRepository {
  return {
    addCounts: (counts) => addCounts(db, counts),
    dailyCounts: (kinds, since) => dailyCounts(db, kinds, since),
    topNames: (kind, since, limit) => topNames(db, kind, since, limit),
    topKeys: (since, limit) => topKeys(db, since, limit),
    topAccounts: (since, limit) => topAccounts(db, since, limit),
  };
}
