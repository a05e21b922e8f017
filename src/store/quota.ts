/**
 * Quota counting (docs/api.md "Keys, plans, quotas"). One counter row per key and period; counting is a single
 * upsert that counts only for a key not revoked and only while the requests fit in
 * what is left, so concurrent requests on any number of instances sharing the database
 * can never count more than the quota. Written as plain SQL (valid in both dialects)
 * and compiled once per database: it runs on every API request, and Kysely's query
 * builder would cost more than the query itself on SQLite.
 */
import { CompiledQuery, type Kysely, sql } from "kysely";
import { MAX_QUOTA } from "./plans-repository.js";
import { type QuotaPeriod, quotaPeriod } from "./quota-period.js";
import type { Database } from "./schema.js";
import type { AuthenticatedKey, QuotaState } from "./types.js";

/** What one counting statement is given. */
interface UpsertValues {
  start: number;
  count: number;
  keyId: string;
  quota: number;
}

/**
 * The counting statement, with each value's name where the value goes (compiled once,
 * below). An unlimited plan (quota null) counts every request, the count stopping at
 * MAX_QUOTA so the 32-bit column never overflows.
 */
function upsertStatement(unlimited: boolean) {
  const v: Record<keyof UpsertValues, keyof UpsertValues> = {
    start: "start",
    count: "count",
    keyId: "keyId",
    quota: "quota",
  };
  const fits = unlimited ? sql`` : sql`and cast(${v.count} as integer) <= ${v.quota}`;
  const add = unlimited
    ? sql`case when usage.used > ${sql.lit(MAX_QUOTA)} - excluded.used then ${sql.lit(MAX_QUOTA)}
      else usage.used + excluded.used end`
    : sql`usage.used + excluded.used where usage.used + excluded.used <= ${v.quota}`;
  return sql<{ used: number }>`
    insert into usage (key_id, period_start, used)
    select id, cast(${v.start} as bigint), cast(${v.count} as integer) from api_keys
    where id = ${v.keyId} and revoked_at is null ${fits}
    on conflict (key_id, period_start) do update set used = ${add}
    returning used`;
}

interface CompiledUpsert {
  sql: string;
  /** Which value each placeholder takes, in order. */
  names: (keyof UpsertValues)[];
}

/**
 * The statement compiled once per database and shape: compiling it is most of what
 * counting a request costs on SQLite. It is compiled with the values' names in place of
 * the values, so the placeholders' order comes from the compiler, never restated here.
 */
const compiledUpserts = new WeakMap<Kysely<Database>, Map<boolean, CompiledUpsert>>();

function compiledUpsert(db: Kysely<Database>, unlimited: boolean): CompiledUpsert {
  let shapes = compiledUpserts.get(db);
  if (!shapes) {
    shapes = new Map();
    compiledUpserts.set(db, shapes);
  }
  let compiled = shapes.get(unlimited);
  if (!compiled) {
    const query = upsertStatement(unlimited).compile(db);
    compiled = { sql: query.sql, names: query.parameters as (keyof UpsertValues)[] };
    shapes.set(unlimited, compiled);
  }
  return compiled;
}

/**
 * Counts `count` units at once when all of them fit in what is left of the quota;
 * returns the new count, or undefined when nothing was counted (not enough left, or the
 * key revoked meanwhile — selecting the key makes a revocation by another process count).
 */
async function countRequests(
  db: Kysely<Database>,
  key: AuthenticatedKey,
  period: QuotaPeriod,
  count: number,
): Promise<number | undefined> {
  const { sql: text, names } = compiledUpsert(db, key.quota === null);
  const values: UpsertValues = {
    start: period.start.getTime(),
    count,
    keyId: key.id,
    quota: key.quota ?? 0,
  };
  const { rows } = await db.executeQuery<{ used: number }>(
    CompiledQuery.raw(
      text,
      names.map((name) => values[name]),
    ),
  );
  return rows[0]?.used;
}

/**
 * The state after counting: `used` undefined means refused, reported as the period used
 * up (remaining 0), as far as this request can tell without another query.
 */
function quotaState(key: AuthenticatedKey, period: QuotaPeriod, used: number | undefined): QuotaState {
  const counted = used ?? key.quota ?? 0;
  return {
    allowed: used !== undefined,
    limit: key.quota,
    remaining: key.quota === null ? null : Math.max(0, key.quota - counted),
    used: counted,
    periodStart: period.start,
    resetAt: period.end,
  };
}

/** The current period's state of a key, read without counting (`allowed` true). */
export async function readQuota(db: Kysely<Database>, key: AuthenticatedKey, now: Date): Promise<QuotaState> {
  const period = quotaPeriod(key.createdAt, key.periodDays, now);
  const row = await db
    .selectFrom("usage")
    .select("used")
    .where("key_id", "=", key.id)
    .where("period_start", "=", period.start.getTime())
    .executeTakeFirst();
  return quotaState(key, period, row?.used ?? 0);
}

/**
 * Counts the requests of one key made together at `now`, in order; request i costs
 * `units[i]`. All of them with one statement when they fit; else one at a time, each
 * counted only when all its units are left (a request refused for n units means every
 * later one of n or more is refused too, without asking the database again).
 */
export async function countUnits(
  db: Kysely<Database>,
  key: AuthenticatedKey,
  now: Date,
  units: readonly number[],
): Promise<QuotaState[]> {
  const period = quotaPeriod(key.createdAt, key.periodDays, now);
  // A plan without any quota must never reach the upsert (it could insert a first count).
  if (key.quota !== null && key.quota <= 0) return units.map(() => quotaState(key, period, undefined));
  if (units.length > 1) {
    const total = units.reduce((sum, n) => sum + n, 0);
    const used = await countRequests(db, key, period, total);
    if (used !== undefined) {
      let usedBefore = used - total;
      return units.map((n) => {
        usedBefore += n;
        return quotaState(key, period, usedBefore);
      });
    }
  }
  const states: QuotaState[] = [];
  let smallestRefused = Number.POSITIVE_INFINITY;
  for (const n of units) {
    const used = n >= smallestRefused ? undefined : await countRequests(db, key, period, n);
    if (used === undefined) smallestRefused = Math.min(smallestRefused, n);
    states.push(quotaState(key, period, used));
  }
  return states;
}

/** Gives back `units` counted in a period; the count never goes below zero. */
export async function refundUnits(
  db: Kysely<Database>,
  key: Pick<AuthenticatedKey, "id">,
  periodStart: Date,
  units: number,
): Promise<void> {
  await db
    .updateTable("usage")
    .set({ used: sql<number>`case when used > ${units} then used - ${units} else 0 end` })
    .where("key_id", "=", key.id)
    .where("period_start", "=", periodStart.getTime())
    .where("used", ">", 0)
    .execute();
}
