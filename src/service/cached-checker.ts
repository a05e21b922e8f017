/**
 * The record cache in front of the engine (docs/api.md §8): a fresh stored record is served
 * as is; a stale one is served while one background refresh runs; a missing one is
 * looked up once for all concurrent callers. A record made during a temporary DNS
 * failure is kept only briefly and never replaces a good stored record (stale-if-error).
 *
 * Every look-up, a caller's and a background refresh alike, runs inside one budget of
 * `lookupConcurrency` look-ups at a time. Background refreshes only ever hold half of
 * it: when that many are already waiting or running, a stale record is served without
 * starting another (a later request will), so a caller's look-up never waits behind
 * more than half a budget of refreshes. So a day's worth of expired records cannot start
 * tens of thousands of look-ups at once, whatever the traffic. With `serveStale: false`
 * (a batch run cleaning a list wants today's verdict) a stale record is looked up again
 * before it is answered, like a missing one.
 */
import { LRUCache } from "lru-cache";
import pLimit, { type LimitFunction } from "p-limit";
import { forAddress } from "../core/check.js";
import type { ParsedInput } from "../core/input.js";
import type { DomainLists } from "../core/lists.js";
import type { CheckRecord } from "../core/record.js";
import { isTemporaryFailure } from "../core/verdict.js";
import type { RecordsRepository, StoredRecord } from "../store/types.js";
import type { Checker, CheckResult } from "./checker.js";
import type { Observer } from "./observer.js";

export interface CachingCheckerOptions {
  records: RecordsRepository;
  /** Told of every checked domain (the recently checked list, learning from traffic). */
  observer?: Observer;
  lists: DomainLists;
  /** The uncached check of one domain. */
  lookup: (domain: string) => Promise<CheckRecord>;
  clock: () => Date;
  /** RECORD_TTL: seconds a record stays fresh. */
  ttlSeconds: number;
  /** Seconds a record made during a temporary DNS failure stays fresh. */
  temporaryTtlSeconds?: number;
  /** Called with errors of background refreshes (they never reach a caller). */
  onBackgroundError?: (error: unknown, domain: string) => void;
  /** Look-ups at a time, callers' and background refreshes together; default 64. */
  lookupConcurrency?: number;
  /** Whether a stale record is answered while it is refreshed (default) or looked up again first. */
  serveStale?: boolean;
}

const DEFAULT_LOOKUP_CONCURRENCY = 64;

/**
 * How long a record read from or saved to the store is answered from memory, to spare
 * the database a read per request. A refresh made by another instance sharing the
 * database is seen at most this much later.
 */
const REMEMBER_SECONDS = 30;

export class CachingChecker implements Checker {
  private readonly inflight = new Map<string, Promise<CheckRecord>>();
  private readonly background = new Set<Promise<unknown>>();
  /** Domains whose last refresh failed temporarily: no new refresh until the entry expires. */
  private readonly failedRecently: LRUCache<string, true>;
  private readonly remembered: LRUCache<string, StoredRecord>;
  /** The look-up budget, shared by callers' look-ups and background refreshes. */
  private readonly lookups: LimitFunction;
  /** Refreshes waiting or running; at most the refresh share of the budget. */
  private refreshesQueued = 0;
  private readonly maxRefreshesQueued: number;

  constructor(private readonly options: CachingCheckerOptions) {
    const concurrency = options.lookupConcurrency ?? DEFAULT_LOOKUP_CONCURRENCY;
    this.lookups = pLimit(concurrency);
    // A caller's look-up never queues behind more than half the budget's worth of refreshes.
    this.maxRefreshesQueued = Math.max(1, Math.floor(concurrency / 2));
    // Every expiry runs on the checker's clock, like the records' own freshness.
    const perf = { now: () => options.clock().getTime() };
    const timed = (ttlMs: number) => ({ max: 10_000, ttl: ttlMs, ttlResolution: 0, perf });
    this.failedRecently = new LRUCache(timed(this.temporaryTtlMs()));
    this.remembered = new LRUCache(timed(REMEMBER_SECONDS * 1000));
  }

  private temporaryTtlMs(): number {
    return (this.options.temporaryTtlSeconds ?? 60) * 1000;
  }

  private isFresh(record: CheckRecord, checkedAt: Date): boolean {
    const ttlMs = isTemporaryFailure(record) ? this.temporaryTtlMs() : this.options.ttlSeconds * 1000;
    return this.options.clock().getTime() - checkedAt.getTime() < ttlMs;
  }

  async check(input: ParsedInput): Promise<CheckResult> {
    const { domain } = input;
    const stored = this.remembered.get(domain) ?? (await this.read(domain));
    let result: CheckResult;
    if (stored && this.isFresh(stored.record, stored.checkedAt)) {
      result = { record: stored.record, cache: "hit" };
    } else if (stored && this.options.serveStale === false) {
      result = { record: await this.refresh(domain, stored.record), cache: "miss" };
    } else if (stored) {
      if (!this.failedRecently.has(domain)) this.refreshInBackground(domain, stored.record);
      result = { record: stored.record, cache: "stale" };
    } else {
      result = { record: await this.refresh(domain, undefined), cache: "miss" };
    }
    this.options.observer?.observe({
      domain,
      at: this.options.clock(),
      cache: result.cache,
      record: result.record,
    });
    return { ...result, record: forAddress(result.record, input, this.options.lists) };
  }

  private async read(domain: string): Promise<StoredRecord | undefined> {
    const stored = await this.options.records.getRecord(domain);
    if (stored) this.remembered.set(domain, stored);
    return stored;
  }

  /** One look-up per domain at a time; its result is saved and shared by every waiting caller. */
  private refresh(domain: string, previous: CheckRecord | undefined): Promise<CheckRecord> {
    const running = this.inflight.get(domain);
    if (running) return running;
    const task = (async () => {
      const record = await this.lookups(() => this.options.lookup(domain));
      if (isTemporaryFailure(record)) {
        this.failedRecently.set(domain, true);
        if (previous && !isTemporaryFailure(previous)) return previous;
      }
      const checkedAt = this.options.clock();
      const saved = await this.options.records.saveRecord(record, checkedAt);
      this.remembered.set(domain, { record: saved, checkedAt });
      return saved;
    })().finally(() => this.inflight.delete(domain));
    this.inflight.set(domain, task);
    return task;
  }

  /** Starts a refresh unless one runs for the domain or the refresh share of the budget is taken. */
  private refreshInBackground(domain: string, previous: CheckRecord): void {
    if (this.inflight.has(domain) || this.refreshesQueued >= this.maxRefreshesQueued) return;
    this.refreshesQueued++;
    const task = this.refresh(domain, previous)
      .catch((error: unknown) => this.options.onBackgroundError?.(error, domain))
      .finally(() => {
        this.refreshesQueued--;
        this.background.delete(task);
      });
    this.background.add(task);
  }

  async drain(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
    await this.options.observer?.flush();
  }
}
