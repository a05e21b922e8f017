/**
 * Quota counting (docs/api.md "Keys, plans, quotas"). One counter row per key and period
 * (per account and period for an account's keys, docs/accounts.md); counting is a single
 * upsert that counts only for a key not revoked and only while the requests fit in
 * what is left, so concurrent requests on any number of instances sharing the database
 * can never count more than the quota. Written as plain SQL (valid in both dialects)
 * and compiled once per database: it runs on every API request, and Kysely's query
 * builder would cost more than the query itself on SQLite.
 */
import { CompiledQuery, type Kysely, sql } from "kysely";
import { MAX_QUOTA } from "../core/plan-rules.js";
import { AccountSuspendedError } from "../core/refusals.js";
import { toDate } from "./columns.js";
import { COUNTS, giveBackUnits } from "./quota-give-back.js";
import { type QuotaPeriod, quotaPeriod } from "./quota-period.js";
import { type Counter, type QuotaSettlements, receiptToken, writesReceipts } from "./quota-receipts.js";
import type { Database } from "./schema.js";
import type { AuthenticatedKey, QuotaState } from "./usage-types.js";

/** Where a key's requests are counted: its account's row when it has one, else its own. */
function counter(key: AuthenticatedKey): Counter {
  return key.account ? { ...COUNTS.account, id: key.account.id } : { ...COUNTS.key, id: key.id };
}

/** Where the key's periods are anchored: its account's creation when it has one, else its own. */
function anchorOf(key: AuthenticatedKey): Date {
  return key.account ? key.account.createdAt : key.createdAt;
}

/** Each key's last counting period: every request of a period asks for it (twice, with the batch's grouping). */
const lastPeriods = new WeakMap<AuthenticatedKey, QuotaPeriod>();

/** The period of the key's count that contains `now` (anchored at the account's creation for an account's key). */
export function countingPeriod(key: AuthenticatedKey, now: Date): QuotaPeriod {
  const last = lastPeriods.get(key);
  const at = now.getTime();
  if (last !== undefined && last.start.getTime() <= at && at < last.end.getTime()) return last;
  const period = quotaPeriod(anchorOf(key), key.periodDays, now);
  lastPeriods.set(key, period);
  return period;
}

/** What one counting statement is given. */
interface UpsertValues {
  start: number;
  /** The request's time: a rolled key still counts until its `expires_at`. */
  now: number;
  count: number;
  keyId: string;
  quota: number;
  /** The statement's receipt (PostgreSQL; quota-receipts.ts). */
  token: string;
}

/**
 * The counting statement, with each value's name where the value goes (compiled once,
 * below). An unlimited plan (quota null) counts every request, the count stopping at
 * MAX_QUOTA so the 32-bit column never overflows. With `receipt` (PostgreSQL) the same
 * statement writes the receipt of what it counted, so that a count whose answer was lost
 * can be given back (quota-receipts.ts).
 */
function upsertStatement(unlimited: boolean, perAccount: boolean, receipt: boolean) {
  const v: Record<keyof UpsertValues, keyof UpsertValues> = {
    start: "start",
    now: "now",
    count: "count",
    keyId: "keyId",
    quota: "quota",
    token: "token",
  };
  const count = perAccount ? COUNTS.account : COUNTS.key;
  const table = sql.table(count.table);
  // The row's owner, selected from the key: its account, or its own id.
  const owner = sql.ref(perAccount ? "account_id" : "id");
  const ownerColumn = sql.ref(count.owner);
  const used = sql.ref(`${count.table}.used`);
  const fits = unlimited ? sql`` : sql`and cast(${v.count} as integer) <= ${v.quota}`;
  const add = unlimited
    ? sql`case when ${used} > ${sql.lit(MAX_QUOTA)} - excluded.used then ${sql.lit(MAX_QUOTA)}
      else ${used} + excluded.used end`
    : sql`${used} + excluded.used where ${used} + excluded.used <= ${v.quota}`;
  const upsert = sql<{ used: number }>`
    insert into ${table} (${ownerColumn}, period_start, used)
    select ${owner}, cast(${v.start} as bigint), cast(${v.count} as integer) from api_keys
    where id = ${v.keyId} and revoked_at is null and (expires_at is null or expires_at > cast(${v.now} as bigint)) ${fits}
    on conflict (${ownerColumn}, period_start) do update set used = ${add}
    returning used`;
  if (!receipt) return upsert;
  return sql<{ used: number }>`
    with counted as (${upsert}),
    receipt as (insert into quota_receipts (token, units) select ${v.token}, cast(${v.count} as integer) from counted)
    select used from counted`;
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
const compiledUpserts = new WeakMap<Kysely<Database>, Map<string, CompiledUpsert>>();

function compiledUpsert(
  db: Kysely<Database>,
  unlimited: boolean,
  perAccount: boolean,
  receipt: boolean,
): CompiledUpsert {
  let shapes = compiledUpserts.get(db);
  if (!shapes) {
    shapes = new Map();
    compiledUpserts.set(db, shapes);
  }
  const shape = `${unlimited} ${perAccount} ${receipt}`;
  let compiled = shapes.get(shape);
  if (!compiled) {
    const query = upsertStatement(unlimited, perAccount, receipt).compile(db);
    compiled = { sql: query.sql, names: query.parameters as (keyof UpsertValues)[] };
    shapes.set(shape, compiled);
  }
  return compiled;
}

/**
 * Counts `count` units at once when all of them fit in what is left of the quota;
 * returns the new count, or undefined when nothing was counted (not enough left, or the
 * key revoked meanwhile — selecting the key makes a revocation by another process count).
 * `token`: the receipt to write (PostgreSQL), else none.
 */
async function countRequests(
  db: Kysely<Database>,
  key: AuthenticatedKey,
  period: QuotaPeriod,
  count: number,
  now: Date,
  token: string | undefined,
): Promise<number | undefined> {
  const { sql: text, names } = compiledUpsert(
    db,
    key.quota === null,
    key.account !== null,
    token !== undefined,
  );
  const values: UpsertValues = {
    start: period.start.getTime(),
    now: now.getTime(),
    count,
    keyId: key.id,
    quota: key.quota ?? 0,
    token: token ?? "",
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
function quotaState(
  key: Pick<AuthenticatedKey, "quota">,
  period: QuotaPeriod,
  used: number | undefined,
): QuotaState {
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

/** The current period's state of a key (its account's for an account's key), read without counting (`allowed` true). */
export async function readQuota(db: Kysely<Database>, key: AuthenticatedKey, now: Date): Promise<QuotaState> {
  const period = countingPeriod(key, now);
  const { table, owner, id } = counter(key);
  const { rows } = await sql<{ used: number }>`
    select used from ${sql.table(table)} where ${sql.ref(owner)} = ${id}
    and period_start = ${period.start.getTime()}`.execute(db);
  return quotaState(key, period, rows[0]?.used ?? 0);
}

/** Counts `n` units with one statement; the new count, or undefined when nothing was counted. */
type CountStatement = (n: number) => Promise<number | undefined>;

/**
 * The states of requests costing `units[i]`, in order: all of them with one statement
 * when they fit; else one at a time, each counted only when all its units are left (a
 * request refused for n units means every later one of n or more is refused too,
 * without asking the database again).
 */
async function countInOrder(
  key: AuthenticatedKey,
  period: QuotaPeriod,
  units: readonly number[],
  count: CountStatement,
): Promise<QuotaState[]> {
  if (units.length > 1) {
    const total = units.reduce((sum, n) => sum + n, 0);
    const used = await count(total);
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
    const used = n >= smallestRefused ? undefined : await count(n);
    if (used === undefined) smallestRefused = Math.min(smallestRefused, n);
    states.push(quotaState(key, period, used));
  }
  return states;
}

/** One counting statement of `countUnits`: its receipt's token (PostgreSQL), its units, what came of it. */
interface Sent {
  token: string | undefined;
  units: number;
  /** "unknown" while it runs, and for good when it failed: it may have landed unseen. */
  outcome: "counted" | "refused" | "unknown";
}

/**
 * Gives back what the statements of a failed `countUnits` may have counted (its requests
 * are all answered 503): on PostgreSQL each token's receipt, which tells a count that
 * landed unseen; on SQLite the counts known to have landed. What the database refuses
 * now waits in `settlements`.
 */
async function giveBackFailedCount(
  db: Kysely<Database>,
  row: Counter,
  period: QuotaPeriod,
  sent: readonly Sent[],
  settlements: QuotaSettlements,
): Promise<void> {
  for (const { token, units, outcome } of sent) {
    if (outcome === "refused") continue;
    // By the token: the receipt's units if the count landed, none (the token cancelled) if not.
    if (token !== undefined) await settlements.attempt(() => giveBackUnits(db, row, period.start, 0, token));
    else if (outcome === "counted")
      await settlements.attempt(() => giveBackUnits(db, row, period.start, units));
  }
}

/**
 * Counts the requests of one key made together at `now`, in order; request i costs
 * `units[i]` (`countInOrder`). When a statement fails, every request fails, and whatever
 * the statements counted is given back first, landed unseen or not (quota-receipts.ts).
 */
export async function countUnits(
  db: Kysely<Database>,
  key: AuthenticatedKey,
  now: Date,
  units: readonly number[],
  settlements: QuotaSettlements,
): Promise<QuotaState[]> {
  const period = countingPeriod(key, now);
  // A plan without any quota must never reach the upsert (it could insert a first count).
  if (key.quota !== null && key.quota <= 0) return units.map(() => quotaState(key, period, undefined));
  const receipts = writesReceipts(db);
  const sent: Sent[] = [];
  const count: CountStatement = async (n) => {
    const statement: Sent = { token: receipts ? receiptToken() : undefined, units: n, outcome: "unknown" };
    sent.push(statement);
    const used = await countRequests(db, key, period, n, now, statement.token);
    statement.outcome = used === undefined ? "refused" : "counted";
    return used;
  };
  try {
    return await countInOrder(key, period, units, count);
  } catch (error) {
    await giveBackFailedCount(db, counter(key), period, sent, settlements);
    throw error;
  }
}

const ACCOUNT_ROW = "account:";

/**
 * The name, among key ids, of an account's own units per day (a console upload's, counted
 * on no key; stored in `account_daily_usage`): the account's chart adds it to its keys'
 * rows, so that the days of a period add up to the account's count.
 */
export function accountUsageRow(accountId: string): string {
  return `${ACCOUNT_ROW}${accountId}`;
}

/** The account of an `accountUsageRow` name; undefined for a key's id. */
export function accountOfUsageRow(row: string): string | undefined {
  return row.startsWith(ACCOUNT_ROW) ? row.slice(ACCOUNT_ROW.length) : undefined;
}

/** Every stored period of the key's count (its account's for an account's key), newest first. */
export async function storedPeriods(
  db: Kysely<Database>,
  key: AuthenticatedKey,
): Promise<{ periodStart: Date; used: number }[]> {
  const { table, owner, id } = counter(key);
  const { rows } = await sql<{ period_start: number | string; used: number }>`
    select period_start, used from ${sql.table(table)} where ${sql.ref(owner)} = ${id}
    order by period_start desc`.execute(db);
  return rows.map((row) => ({ periodStart: toDate(row.period_start), used: row.used }));
}

/**
 * Counts `units` on an account's own count (the one its keys draw from), all or nothing,
 * for what the account does with no key (an upload in the console); `units` 0 reads the
 * period's state. Undefined for an unknown account; a suspended one throws
 * `AccountSuspendedError`. Not on the API's path: one read, then one conditional upsert.
 */
export async function countAccountUnits(
  db: Kysely<Database>,
  accountId: string,
  now: Date,
  units: number,
): Promise<QuotaState | undefined> {
  const { rows } = await sql<{
    created_at: number | string;
    state: string;
    quota: number | null;
    period_days: number;
  }>`
    select a.created_at, a.state, p.quota, p.period_days from accounts a join plans p on p.name = a.plan
    where a.id = ${accountId}`.execute(db);
  const account = rows[0];
  if (!account) return undefined;
  if (account.state !== "active") throw new AccountSuspendedError();
  const limit = { quota: account.quota };
  const period = quotaPeriod(toDate(account.created_at), account.period_days, now);
  const start = period.start.getTime();
  if (units === 0) {
    const { rows: read } = await sql<{ used: number }>`
      select used from account_usage where account_id = ${accountId} and period_start = ${start}`.execute(db);
    return quotaState(limit, period, read[0]?.used ?? 0);
  }
  if (account.quota !== null && units > account.quota) return quotaState(limit, period, undefined);
  const quota = account.quota ?? MAX_QUOTA;
  const add =
    account.quota === null
      ? sql`case when account_usage.used > ${quota} - excluded.used then ${quota} else account_usage.used + excluded.used end`
      : sql`account_usage.used + excluded.used where account_usage.used + excluded.used <= ${quota}`;
  const { rows: counted } = await sql<{ used: number }>`
    insert into account_usage (account_id, period_start, used) values (${accountId}, ${start}, ${units})
    on conflict (account_id, period_start) do update set used = ${add}
    returning used`.execute(db);
  return quotaState(limit, period, counted[0]?.used);
}
