/**
 * Counts and refunds whose outcome the database did not tell (docs/http.md "When the
 * database dies mid-request"). A PostgreSQL connection can die after a statement
 * committed and before its answer arrived: the request is answered 503, and the units the
 * statement counted would stay counted. So on PostgreSQL each counting statement writes a
 * receipt (its token and units) in the same statement, and a count or a refund that
 * failed is settled by its token with `giveBackOnce`: one statement that gives back the
 * receipt's units when its count landed, and otherwise leaves a cancelled receipt, on
 * which a count of that token arriving late fails (counting nothing); run again, it gives
 * nothing more. A settlement the database refused too waits in `QuotaSettlements`, tried
 * again every second (`settleQuota`) for as long as receipts are kept. On SQLite a
 * statement that failed never landed (better-sqlite3 runs it in this process), so only
 * what did land is given back, with a plain refund, and the table stays empty.
 */
import { randomBytes } from "node:crypto";
import { type Kysely, PostgresAdapter, sql } from "kysely";
import { StoreUnavailableError } from "./errors.js";
import type { Database } from "./schema.js";
import { toStoreError } from "./unavailable.js";

/** How long receipts are kept: a settlement still waiting after that is dropped (its units stay counted). */
export const RECEIPT_RETENTION_MS = 3_600_000;
/** How often `settleQuota` prunes the receipts. */
const PRUNE_EVERY_MS = 60_000;
/** Settlements kept waiting at most; past that the oldest is dropped. */
const MAX_WAITING = 100_000;

/** A count's row: the table, its owner column and the owner's id (a key's, or its account's). */
export interface Counter {
  table: "usage" | "account_usage";
  owner: "key_id" | "account_id";
  id: string;
}

/** Whether counting on this database writes receipts: PostgreSQL, whose answers can be lost after a commit. */
export function writesReceipts(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

const PROCESS = randomBytes(6).toString("base64url");
let made = 0;

/** The time (ms) as a token's prefix: tokens sort by the time they were made. */
function timePrefix(at: number): string {
  return at.toString(36).padStart(9, "0");
}

/** A new token, unique among every process sharing the database. */
export function receiptToken(): string {
  made = (made + 1) % Number.MAX_SAFE_INTEGER;
  return `${timePrefix(Date.now())}.${PROCESS}.${made.toString(36)}`;
}

/**
 * Gives back, once, the units of the receipt `token` (a count that landed), or `units`
 * when no receipt of it exists (a refund; 0 for a count that did not land, whose token
 * is then cancelled). Whether units were given back.
 */
export async function giveBackOnce(
  db: Kysely<Database>,
  counter: Counter,
  periodStart: Date,
  token: string,
  units: number,
): Promise<boolean> {
  const table = sql.table(counter.table);
  const result = await sql`
    with given as (
      insert into quota_receipts (token, units, cancelled) values (${token}, ${units}, 1)
      on conflict (token) do update set cancelled = 1 where quota_receipts.cancelled = 0
      returning units)
    update ${table} set used = case when used > given.units then used - given.units else 0 end
    from given where ${sql.ref(`${counter.table}.${counter.owner}`)} = ${counter.id}
    and period_start = ${periodStart.getTime()} and given.units > 0 and used > 0`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** Deletes the receipts made before `before` (one statement: a minute of them, found by the primary key). */
async function pruneReceipts(db: Kysely<Database>, before: number): Promise<void> {
  await sql`delete from quota_receipts where token < ${timePrefix(before)}`.execute(db);
}

interface Waiting {
  settle: () => Promise<unknown>;
  since: number;
}

/** Give-backs that must land once: tried now, and kept for later while the database is unreachable. */
export class QuotaSettlements {
  private waiting: Waiting[] = [];
  private prunedAt = 0;

  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Runs `settle`, twice when the database is unreachable the first time (the pool may
   * hand out a connection that died with the one that failed: the second try opens
   * another); still unreachable, keeps it to try again (`retry`) and resolves undefined.
   * Any other failure is thrown.
   */
  async attempt<T>(settle: () => Promise<T>, now = Date.now()): Promise<T | undefined> {
    for (let tries = 1; ; tries++) {
      try {
        return await settle();
      } catch (error) {
        if (!(toStoreError(error) instanceof StoreUnavailableError)) throw error;
        if (tries < 2) continue;
        if (this.waiting.length >= MAX_WAITING) this.waiting.shift();
        this.waiting.push({ settle, since: now });
        return undefined;
      }
    }
  }

  /**
   * Tries the waiting settlements again, in order, until one fails (the rest wait on);
   * one older than the receipts' retention is dropped (its receipt may be gone, and a
   * refund run again without it would give back twice). Then prunes old receipts.
   */
  async retry(now = Date.now()): Promise<void> {
    const keptSince = now - RECEIPT_RETENTION_MS;
    this.waiting = this.waiting.filter((entry) => entry.since >= keptSince);
    while (this.waiting.length > 0) {
      const [first] = this.waiting;
      try {
        await (first as Waiting).settle();
      } catch (error) {
        // Unreachable still: it waits, with those behind it. Anything else would fail again: dropped.
        if (!(toStoreError(error) instanceof StoreUnavailableError)) this.waiting.shift();
        throw error;
      }
      this.waiting.shift();
    }
    if (writesReceipts(this.db) && now - this.prunedAt >= PRUNE_EVERY_MS) {
      // A margin past the retention: a settlement's token may be a little older than the settlement.
      await pruneReceipts(this.db, keptSince - PRUNE_EVERY_MS);
      this.prunedAt = now;
    }
  }
}
