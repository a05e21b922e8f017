/**
 * The record cache in front of the engine (docs/api.md §8): a fresh stored record is served
 * as is; a stale one is served while one background refresh runs; a missing one is
 * looked up once for all concurrent callers. A record made during a temporary DNS
 * failure is kept only briefly and never replaces a good stored record (stale-if-error).
 * A record saying the domain does not exist or takes no mail stays fresh NEGATIVE_TTL
 * (default one hour, like DNS negative caching) and, once stale, is looked up again
 * before it is answered: a domain registered since must not be refused once more.
 *
 * Every look-up, a caller's and a background refresh alike, runs inside one budget of
 * `lookupConcurrency` look-ups at a time. Background refreshes only ever hold half of
 * it: when that many are already waiting or running, a stale record is served without
 * starting another (a later request will), so a caller's look-up never waits behind
 * more than half a budget of refreshes. So a day's worth of expired records cannot start
 * tens of thousands of look-ups at once, whatever the traffic. With `serveStale: false`
 * (a batch run cleaning a list wants today's verdict) a stale record is looked up again
 * before it is answered, like a missing one.
 *
 * Learning (docs/verdicts.md, "Learned infrastructure"): every fresh look-up's evidence
 * goes to the `evidence` observer (a cache hit carries none), and a record that does
 * not block but uses infrastructure learnt disposable since it was checked is looked up
 * again before it is answered, fresh or stale.
 */
import { LRUCache } from "lru-cache";
import pLimit, { type LimitFunction } from "p-limit";
import { type DomainCheck, forAddress, storedCheck, verdictOf } from "../core/check.js";
import type { ParsedInput } from "../core/input.js";
import type { DomainLists } from "../core/lists.js";
import { isTemporaryFailure, type VerdictStatus } from "../core/verdict.js";
import type { ResolverLoad } from "../dns/node-dns-resolver.js";
import type { RecordsRepository, StoredRecord } from "../store/types.js";
import type { LookupResult } from "./age-budget.js";
import type { CacheOutcome, Checker, CheckerLoad, CheckResult } from "./checker.js";
import type { LearnedSnapshot } from "./learned-snapshot.js";
import type { EvidenceObservation, Observer } from "./observer.js";
import type { ResolverHealth } from "./resolver-health.js";

export interface CachingCheckerOptions {
  records: RecordsRepository;
  /** Told of every checked domain (the recently checked list, learning from traffic). */
  observer?: Observer;
  /** Told of every fresh look-up's evidence of mail infrastructure (learning from traffic). */
  evidence?: Observer<EvidenceObservation>;
  /** What was learnt from traffic: the check's data, and whether a stored record predates it. */
  learned?: Pick<
    LearnedSnapshot,
    "loaded" | "ready" | "refreshIfOld" | "outdates" | "reload" | "reloadAfterChange" | "generation"
  >;
  /** The canary of the resolver behind `lookup`, for readiness and metrics. */
  resolverHealth?: ResolverHealth;
  lists: DomainLists;
  /** The uncached check of one domain. */
  lookup: (domain: string) => Promise<LookupResult>;
  clock: () => Date;
  /** RECORD_TTL: seconds a record stays fresh. */
  ttlSeconds: number;
  /** Seconds a record made during a temporary DNS failure stays fresh. */
  temporaryTtlSeconds?: number;
  /** NEGATIVE_TTL: seconds a record saying the domain does not exist or takes no mail stays fresh; default the TTL. */
  negativeTtlSeconds?: number;
  /** Called with errors of background refreshes (they never reach a caller). */
  onBackgroundError?: (error: unknown, domain: string) => void;
  /** Look-ups at a time, callers' and background refreshes together; default 64. */
  lookupConcurrency?: number;
  /** Whether a stale record is answered while it is refreshed (default) or looked up again first. */
  serveStale?: boolean;
  /** DNS queries on the wire and waiting behind `lookup` (NodeDnsResolver.load), for `load()`. */
  dnsLoad?: () => ResolverLoad;
}

const DEFAULT_LOOKUP_CONCURRENCY = 64;

/** A record saying the domain does not exist or takes no mail (NEGATIVE_TTL applies). */
function isNegative(status: VerdictStatus): boolean {
  return (
    status === "nxdomain" ||
    status === "no_mail" ||
    status === "null_mx" ||
    status === "mx_missing" ||
    status === "reserved"
  );
}

/**
 * How long a record read from or saved to the store is answered from memory, to spare
 * the database a read per request. A refresh made by another instance sharing the
 * database is seen at most this much later.
 */
const REMEMBER_SECONDS = 30;

export class CachingChecker implements Checker {
  private readonly inflight = new Map<string, Promise<DomainCheck>>();
  private readonly background = new Set<Promise<unknown>>();
  /** Domains whose last refresh failed temporarily: no new refresh until the entry expires. */
  private readonly failedRecently: LRUCache<string, true>;
  /**
   * Records read from or saved to the store, each with the time (ms) until which it is
   * answered from memory and the generation of the overrides it was remembered under.
   */
  private readonly remembered = new LRUCache<
    string,
    { stored: StoredRecord; until: number; generation: number }
  >({ max: 10_000 });
  /** The look-up budget, shared by callers' look-ups and background refreshes. */
  private readonly lookups: LimitFunction;
  /** Refreshes waiting or running; at most the refresh share of the budget. */
  private refreshesQueued = 0;
  private readonly maxRefreshesQueued: number;

  readonly resolverHealth: ResolverHealth | undefined;

  constructor(private readonly options: CachingCheckerOptions) {
    this.resolverHealth = options.resolverHealth;
    const concurrency = options.lookupConcurrency ?? DEFAULT_LOOKUP_CONCURRENCY;
    this.lookups = pLimit(concurrency);
    // A caller's look-up never queues behind more than half the budget's worth of refreshes.
    this.maxRefreshesQueued = Math.max(1, Math.floor(concurrency / 2));
    // Every expiry runs on the checker's clock, like the records' own freshness.
    this.failedRecently = new LRUCache({
      max: 10_000,
      ttl: this.temporaryTtlMs(),
      ttlResolution: 0,
      perf: { now: () => options.clock().getTime() },
    });
  }

  private temporaryTtlMs(): number {
    return (this.options.temporaryTtlSeconds ?? 60) * 1000;
  }

  private isFresh(status: VerdictStatus, checkedAt: Date, now: Date): boolean {
    const { ttlSeconds, negativeTtlSeconds = ttlSeconds } = this.options;
    const ttlMs = isTemporaryFailure(status)
      ? this.temporaryTtlMs()
      : (isNegative(status) ? negativeTtlSeconds : ttlSeconds) * 1000;
    return now.getTime() - checkedAt.getTime() < ttlMs;
  }

  async check(input: ParsedInput): Promise<CheckResult> {
    const { domain } = input;
    const { learned } = this.options;
    if (learned && !learned.loaded) await learned.ready;
    // One reading of the clock per check (a cache hit is answered in microseconds).
    const now = this.options.clock();
    learned?.refreshIfOld(now);
    const stored = this.recall(domain, now) ?? (await this.read(domain, now));
    // A record saved before the store kept verdicts counts as missing: it is checked again.
    const cached = stored?.verdict ? storedCheck(stored.record, stored.verdict) : undefined;
    let result: { check: DomainCheck; cache: CacheOutcome };
    if (
      stored &&
      cached &&
      learned?.outdates(stored.record, stored.checkedAt) &&
      !this.failedRecently.has(domain)
    ) {
      // Checked before infrastructure it uses was learnt disposable: never answered as it was.
      result = { check: await this.refresh(domain, cached), cache: "miss" };
    } else if (stored && cached && this.isFresh(cached.status, stored.checkedAt, now)) {
      result = { check: cached, cache: "hit" };
    } else if (cached && (this.options.serveStale === false || isNegative(cached.status))) {
      // A stale "does not exist" is never served: the domain may have been registered since.
      result = { check: await this.refresh(domain, cached), cache: "miss" };
    } else if (cached) {
      if (!this.failedRecently.has(domain)) this.refreshInBackground(domain, cached);
      result = { check: cached, cache: "stale" };
    } else {
      result = { check: await this.refresh(domain, undefined), cache: "miss" };
    }
    this.options.observer?.observe({
      domain,
      at: now,
      cache: result.cache,
      record: result.check.record,
    });
    const { record, status } = forAddress(result.check, input, this.options.lists);
    return { record, status, cache: result.cache };
  }

  /** The overrides' generation (learned-snapshot.ts); 0 without a snapshot. */
  private overridesGeneration(): number {
    return this.options.learned?.generation ?? 0;
  }

  /** The record remembered from the store, unless REMEMBER_SECONDS have passed or the overrides changed since. */
  private recall(domain: string, now: Date): StoredRecord | undefined {
    const entry = this.remembered.get(domain);
    if (entry === undefined) return undefined;
    if (entry.until > now.getTime() && entry.generation === this.overridesGeneration()) return entry.stored;
    this.remembered.delete(domain);
    return undefined;
  }

  private remember(domain: string, stored: StoredRecord, now: Date, generation: number): void {
    this.remembered.set(domain, { stored, until: now.getTime() + REMEMBER_SECONDS * 1000, generation });
  }

  private async read(domain: string, now: Date): Promise<StoredRecord | undefined> {
    const generation = this.overridesGeneration();
    const stored = await this.options.records.getRecord(domain);
    if (stored) this.remember(domain, stored, now, generation);
    return stored;
  }

  /**
   * The look-up, made once more when the overrides changed while it ran: a check made
   * under the old ones must not be saved (learned-snapshot.ts), it would outlive the
   * purge of the change. With the generation it was made under.
   */
  private async lookUp(domain: string, again = false): Promise<LookupResult & { generation: number }> {
    const generation = this.overridesGeneration();
    const result = await this.lookups(() => this.options.lookup(domain));
    if (again || generation === this.overridesGeneration()) return { ...result, generation };
    return this.lookUp(domain, true);
  }

  /** One look-up per domain at a time; its result is saved and shared by every waiting caller. */
  private refresh(domain: string, previous: DomainCheck | undefined): Promise<DomainCheck> {
    const running = this.inflight.get(domain);
    if (running) return running;
    const task = (async () => {
      const { check, later, generation } = await this.lookUp(domain);
      if (isTemporaryFailure(check.status)) {
        this.failedRecently.set(domain, true);
        if (previous && !isTemporaryFailure(previous.status)) return previous;
      }
      const saved = await this.save(check, generation);
      if (later)
        void this.track(
          later.then((complete) =>
            // An age that came after the overrides changed is dropped: the next check looks up again.
            complete && generation === this.overridesGeneration() ? this.save(complete, generation) : null,
          ),
          domain,
        );
      return saved;
    })().finally(() => this.inflight.delete(domain));
    this.inflight.set(domain, task);
    return task;
  }

  /** Saves a fresh check and remembers it; the check as saved (block_status_changed_at from the store). */
  private async save(check: DomainCheck, generation: number): Promise<DomainCheck> {
    const checkedAt = this.options.clock();
    const verdict = verdictOf(check);
    const record = await this.options.records.saveRecord(check.record, verdict, checkedAt);
    this.remember(check.record.domain, { record, verdict, checkedAt }, checkedAt, generation);
    if (check.evidence) {
      this.options.evidence?.observe({
        domain: check.evidence.domain,
        at: checkedAt,
        evidence: check.evidence,
      });
    }
    return { ...check, record };
  }

  /** Work that finishes after its caller was answered: drained on shutdown, its errors reported. */
  private track(work: Promise<unknown>, domain: string): Promise<unknown> {
    const task = work
      .catch((error: unknown) => this.options.onBackgroundError?.(error, domain))
      .finally(() => this.background.delete(task));
    this.background.add(task);
    return task;
  }

  /** Starts a refresh unless one runs for the domain or the refresh share of the budget is taken. */
  private refreshInBackground(domain: string, previous: DomainCheck): void {
    if (this.inflight.has(domain) || this.refreshesQueued >= this.maxRefreshesQueued) return;
    this.refreshesQueued++;
    void this.track(this.refresh(domain, previous), domain).finally(() => this.refreshesQueued--);
  }

  load(): CheckerLoad {
    const dns = this.options.dnsLoad?.() ?? { inFlight: 0, waiting: 0 };
    return {
      lookupsRunning: this.lookups.activeCount,
      lookupsWaiting: this.lookups.pendingCount,
      refreshes: this.refreshesQueued,
      dnsInFlight: dns.inFlight,
      dnsWaiting: dns.waiting,
      observationsDropped: (this.options.observer?.dropped ?? 0) + (this.options.evidence?.dropped ?? 0),
    };
  }

  forgetRecords(domains: readonly string[] | "all"): void {
    if (domains === "all") this.remembered.clear();
    else for (const domain of domains) this.remembered.delete(domain);
  }

  async reloadOverrides(): Promise<void> {
    // A reload that finds them changed raises the generation: every record remembered is dropped.
    await this.options.learned?.reloadAfterChange();
  }

  async drain(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
    await Promise.all([this.options.observer?.flush(), this.options.evidence?.flush()]);
    // What the evidence just written teaches is in the snapshot once drain() resolves.
    await this.options.learned?.reload();
  }
}
