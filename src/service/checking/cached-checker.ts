/**
 * The record cache in front of the engine (docs/api.md "Storage and caching"). It stores facts, not
 * verdicts: what DNS and the registries said of a domain. Every answer is decided from
 * the facts with the lists, overrides and learned infrastructure in force at that
 * moment, so a change of any of them takes effect on the next answer with nothing to
 * purge; the decided answer is kept beside the facts until the sources' version moves.
 *
 * Fresh facts are answered as they are; stale ones are answered while one background
 * refresh runs (freshness.ts has the lifetimes); missing ones are looked up once for all
 * concurrent callers (in-flight.ts). Facts found during a temporary DNS failure are kept
 * only briefly and never replace good stored facts (stale-if-error). Facts saying the
 * domain does not exist or takes no mail, once stale, are looked up again before they
 * are answered: a domain registered since must not be refused once more. With
 * `serveStale: false` (a batch run cleaning a list wants today's facts) any stale facts
 * are looked up again first. Every look-up runs within the budget of its caller's lane,
 * the pages' or the API's, and its client's share of it (lookup-budget.ts).
 *
 * `block_status_changed_at` is the time the answered block status last changed: an
 * answer to an API caller, or its look-up's save, whose block differs from the one last
 * answered for the domain records the flip in the store with `noteBlock` (first writer
 * wins across instances), which writes the flip's webhook events with it
 * (docs/webhooks.md, "Which answers record a flip"); reads (the pages, the CLI) record
 * none. `redecide()` records the flip of a watched domain nobody checks after a change
 * of policy.
 *
 * Learning (docs/verdicts.md, "Learned infrastructure"): every fresh look-up's evidence
 * goes to the `evidence` observer (an answer from stored facts carries none).
 */
import { LRUCache } from "lru-cache";
import { type DomainCheck, type DomainFacts, decideDomain, forAddress } from "../../core/check.js";
import type { ParsedInput } from "../../core/input.js";
import type { LearnedInfrastructure } from "../../core/learned.js";
import { type DomainLists, isChanging } from "../../core/list-interfaces.js";
import { suffixFacts } from "../../core/names.js";
import { formatTimestamp } from "../../core/record.js";
import { DAY_MS } from "../../core/time.js";
import type { TypoIndex } from "../../core/typo.js";
import type { ResolverLoad } from "../../dns/node-dns-resolver.js";
import type {
  BlockStatus,
  FlipNotice,
  NotedBlock,
  RecordsRepository,
  WatchedFacts,
} from "../../store/index.js";
import type { AccountDomains, AccountListsInMemory } from "../accounts/account-lists-in-memory.js";
import { InFlight } from "../shared/in-flight.js";
import type { LookupResult } from "./age-budget.js";
import type { EvidenceObservation, Observer } from "./batched-observer.js";
import type {
  CacheOutcome,
  Checker,
  CheckerLoad,
  CheckResult,
  Lane,
  MemoryAnswer,
  SourcesKind,
} from "./checker.js";
import { failedForNow, freshForMs, isNegative } from "./freshness.js";
import type { LearnedSnapshot } from "./learned-snapshot.js";
import { type GivesWayTo, LookupBudget } from "./lookup-budget.js";
import { type KnownDomain, RememberedDomains } from "./remembered-domains.js";
import type { ResolverHealth } from "./resolver-health.js";

export interface CachingCheckerOptions {
  records: RecordsRepository;
  /** Told of every checked domain (the recently checked list). */
  observer?: Observer;
  /** Told of every fresh look-up's evidence of mail infrastructure (learning from traffic). */
  evidence?: Observer<EvidenceObservation>;
  /** The lists, bundled, or in force with synced sources (src/service/lists/lists-in-force.ts). */
  lists: DomainLists;
  typos: TypoIndex;
  /** TEST_NAMES: `.test` names and documentation MX addresses count as public. */
  testNames: boolean;
  /** What was learnt from traffic and the operator's overrides, with their version; default nothing. */
  learned?: Pick<LearnedSnapshot, "loaded" | "ready" | "refreshIfOld" | "version" | "reloadAfterChange"> &
    LearnedInfrastructure;
  /** The canary of the resolver behind `lookup`, for readiness and metrics. */
  resolverHealth?: ResolverHealth;
  /** The uncached look-up of one domain's facts. */
  lookup: (domain: string) => Promise<LookupResult>;
  clock: () => Date;
  /** RECORD_TTL: seconds facts stay fresh. */
  ttlSeconds: number;
  /** Seconds facts found during a temporary DNS failure stay fresh; default 60. */
  temporaryTtlSeconds?: number;
  /** NEGATIVE_TTL: seconds facts saying the domain does not exist or takes no mail stay fresh; default the TTL. */
  negativeTtlSeconds?: number;
  /** Called with errors of background refreshes (they never reach a caller). */
  onBackgroundError?: (error: unknown, domain: string) => void;
  /** Look-ups at a time of the API budget, callers' and background refreshes together; default 64. */
  lookupConcurrency?: number | undefined;
  /** PAGE_LOOKUP_CONCURRENCY: look-ups at a time of the pages' budget. */
  pageLookupConcurrency: number;
  /** The API's requests in progress, which the list jobs' look-ups give way to (docs/jobs.md "Headroom"). */
  jobsGiveWayTo?: GivesWayTo | undefined;
  /** Whether stale facts are answered while they are refreshed (default) or looked up again first. */
  serveStale?: boolean;
  /** DNS queries on the wire and waiting behind `lookup` (NodeDnsResolver.load), for `load()`. */
  dnsLoad?: () => ResolverLoad;
  /** WEBHOOK_WATCH_DAYS: a flip raises webhook events when the domain was answered within it. */
  webhookWatchDays: number;
  /**
   * The policy (overrides and lists) this process holds, as its change watcher took it in:
   * a flip is recorded only while the store's version is the same; a flip refused for that
   * is decided again once `settle` has taken in every change. Default: flips recorded
   * whatever the store's version is.
   */
  policy?: PolicyInForce;
  /**
   * Whether answers in the API's lane (a caller's check, bulk) record a flip of the block
   * status, with its webhook events: the server's wiring sets it. Checks in the pages' lane
   * or in none (the CLI, the reports queue) only read; `redecide()` always records.
   */
  recordsFlips?: boolean;
  /** The accounts' own lists this process holds: a check whose lane names an account follows its list. */
  accountLists?: Pick<AccountListsInMemory, "held" | "load" | "reloadAfterChange">;
}

/** What a checker asks of the change watcher (change-watcher.ts) about the policy it holds. */
export interface PolicyInForce {
  /** The policy version whose changes hold here; undefined before the first reading. */
  policyVersion(): number | undefined;
  /** Resolves once every change made before the call holds here; never rejects. */
  settle(): Promise<void>;
}

/** The check with block_status_changed_at set to the domain's. */
function stamped(check: DomainCheck, changedAt: Date): DomainCheck {
  return { ...check, record: { ...check.record, block_status_changed_at: formatTimestamp(changedAt) } };
}

export class CachingChecker implements Checker {
  private readonly inFlight = new InFlight<KnownDomain>();
  private readonly background = new Set<Promise<unknown>>();
  private readonly remembered = new RememberedDomains();
  private readonly budget: LookupBudget;
  /** Domains whose last refresh failed temporarily: no new refresh until the entry expires. */
  private readonly failedRecently: LRUCache<string, true>;
  private readonly freshness;

  readonly resolverHealth: ResolverHealth | undefined;

  constructor(private readonly options: CachingCheckerOptions) {
    this.resolverHealth = options.resolverHealth;
    this.budget = new LookupBudget({
      api: options.lookupConcurrency,
      pages: options.pageLookupConcurrency,
      jobsGiveWayTo: options.jobsGiveWayTo,
    });
    this.freshness = {
      ttlSeconds: options.ttlSeconds,
      negativeTtlSeconds: options.negativeTtlSeconds ?? options.ttlSeconds,
      temporaryTtlSeconds: options.temporaryTtlSeconds ?? 60,
    };
    // Every expiry runs on the checker's clock, like the facts' own freshness.
    this.failedRecently = new LRUCache({
      max: 10_000,
      ttl: this.freshness.temporaryTtlSeconds * 1000,
      ttlResolution: 0,
      perf: { now: () => options.clock().getTime() },
    });
  }

  async check(input: ParsedInput, lane?: Lane): Promise<CheckResult> {
    const { domain } = input;
    const loading = this.sourcesLoading();
    if (loading) await loading;
    const { learned } = this.options;
    // One reading of the clock per check (an answer from memory takes microseconds).
    const now = this.options.clock();
    learned?.refreshIfOld(now);
    let known = this.remembered.get(domain, now) ?? (await this.read(domain, now));
    let cache: CacheOutcome = "miss";
    if (known === undefined) {
      known = await this.refresh(domain, undefined, lane);
    } else {
      const { status } = this.decided(known, now);
      if (now.getTime() - known.checkedAt.getTime() < freshForMs(known.facts, status, this.freshness)) {
        cache = "hit";
      } else if (this.options.serveStale === false || isNegative(status)) {
        // A stale "does not exist" is never served: the domain may have been registered since.
        known = await this.refresh(domain, known, lane);
      } else {
        if (!this.failedRecently.has(domain)) this.refreshInBackground(domain, known, lane);
        cache = "stale";
      }
    }
    const check = await this.answer(known, now, this.recordsFlipsOf(lane));
    this.options.observer?.observe({ domain, at: now, cache, record: check.record, via: lane?.budget });
    // A key of an account answers by its account's own list; a key without one pays nothing.
    const account = lane?.account;
    if (account !== undefined && this.options.accountLists !== undefined) {
      return this.answerToAccount(account, this.options.accountLists, check, known, input, now, cache);
    }
    return this.resultOf(check, input, cache);
  }

  answerFromMemory(input: ParsedInput, lane: Lane): MemoryAnswer | undefined {
    if (this.sourcesLoading()) return undefined;
    const { domain } = input;
    const now = this.options.clock();
    const known = this.remembered.get(domain, now);
    if (known === undefined) return undefined;
    const check = this.decided(known, now);
    if (now.getTime() - known.checkedAt.getTime() >= freshForMs(known.facts, check.status, this.freshness)) {
      return undefined;
    }
    // A block status that is not the stored one is recorded first, or stamped now (answer()).
    if (check.record.block !== known.block) return undefined;
    const { account } = lane;
    const { accountLists } = this.options;
    let answer = check;
    if (account !== undefined && accountLists !== undefined) {
      const list = accountLists.held(account);
      if (list === undefined) return undefined;
      answer = this.forAccount(check, known, list, now);
    }
    return {
      result: this.resultOf(answer, input, "hit"),
      answered: () => {
        this.options.learned?.refreshIfOld(now);
        this.options.observer?.observe({
          domain,
          at: now,
          cache: "hit",
          record: check.record,
          via: lane.budget,
        });
      },
    };
  }

  /** What the caller is answered: the domain's check for the input (an address's role, say). */
  private resultOf(check: DomainCheck, input: ParsedInput, cache: CacheOutcome): CheckResult {
    const { record, status, explain } = forAddress(check, input, this.options.lists);
    return { record, status, cache, explain };
  }

  /** The answer to a key of an account: by its own list, held in memory (read once when not held). */
  private async answerToAccount(
    account: string,
    accounts: NonNullable<CachingCheckerOptions["accountLists"]>,
    decided: DomainCheck,
    known: KnownDomain,
    input: ParsedInput,
    now: Date,
    cache: CacheOutcome,
  ): Promise<CheckResult> {
    const list = accounts.held(account) ?? (await accounts.load(account));
    const check = this.forAccount(decided, known, list, now);
    return this.resultOf(check, input, cache);
  }

  /** The first loads of the learned snapshot and the lists in force, while one runs; undefined once both are done. */
  private sourcesLoading(): Promise<unknown> | undefined {
    const { learned, lists } = this.options;
    const learning = learned !== undefined && !learned.loaded;
    const listing = isChanging(lists) && !lists.loaded;
    if (!learning && !listing) return undefined;
    return Promise.all([learning && learned.ready, listing && lists.ready]);
  }

  /**
   * The version of what decides verdicts: it moves when overrides, lists or learned
   * infrastructure change (both parts only grow). A decided answer is kept while it stands.
   */
  sourcesVersion(): number {
    const { learned, lists } = this.options;
    return (learned?.version ?? 0) + (isChanging(lists) ? lists.version : 0);
  }

  /** The domain's check decided from these facts with the sources in force now. */
  private decide(domain: string, facts: DomainFacts, now: Date): DomainCheck {
    const { lists, typos, learned, testNames } = this.options;
    return decideDomain(domain, facts, { lists, typos, learned, testNames }, now);
  }

  /** The answer decided from the domain's facts with the sources in force, kept until their version moves. */
  private decided(known: KnownDomain, now: Date): DomainCheck {
    const version = this.sourcesVersion();
    if (known.decided?.version === version) return known.decided.check;
    const check = stamped(this.decide(known.domain, known.facts, now), known.changedAt);
    known.decided = { version, check };
    return check;
  }

  /**
   * The domain's answer to a key of an account whose own list has an entry of it (and the
   * operator none: `gatherSignals` lets the operator's win), decided again with the list.
   * Only the caller sees it: it is kept with the account's list (`AccountDomains.answers`),
   * never beside the facts, never recorded as the domain's block status (no flip, no
   * webhook) and never observed (the recent list).
   */
  private forAccount(decided: DomainCheck, known: KnownDomain, list: AccountDomains, now: Date): DomainCheck {
    if (list.size === 0) return decided;
    const kept = list.answers.get(decided) as DomainCheck | undefined;
    if (kept !== undefined) return kept;
    const { domain, facts } = known;
    let check = decided;
    if (list.entryFor(domain, suffixFacts(domain).baseDomain) !== undefined) {
      const { lists, typos, learned, testNames } = this.options;
      check = stamped(
        decideDomain(domain, facts, { lists, typos, learned, testNames, account: list }, now),
        known.changedAt,
      );
    }
    list.answers.set(decided, check);
    return check;
  }

  /** Whether a check in this lane records flips (CachingCheckerOptions.recordsFlips). */
  private recordsFlipsOf(lane: Lane | undefined): boolean {
    // List jobs answer a caller too (docs/jobs.md): only the pages and the CLI never record.
    return this.options.recordsFlips === true && lane !== undefined && lane.budget !== "pages";
  }

  /**
   * The decided answer, with a flip of its block status recorded first when `records`. A
   * flip the store refused (this process had not yet taken in a change of policy, its own
   * list sync's included) is decided and tried again once the change holds here. An
   * answer whose block status is not the stored one (read-only, or still refused) says
   * it changed now: never the time the other status began.
   */
  private async answer(known: KnownDomain, now: Date, records: boolean): Promise<DomainCheck> {
    let check = this.decided(known, now);
    if (check.record.block === known.block) return check;
    if (records) {
      this.noteBlockStatus(known, await this.recordFlip(known.domain, check, now));
      check = this.decided(known, now);
      const { policy } = this.options;
      if (check.record.block !== known.block && policy !== undefined) {
        await policy.settle();
        check = this.decided(known, now);
        if (check.record.block !== known.block) {
          this.noteBlockStatus(known, await this.recordFlip(known.domain, check, now));
          check = this.decided(known, now);
        }
      }
      if (check.record.block === known.block) return check;
    }
    return stamped(check, now);
  }

  /** Records the block status of a check that differs from the stored one, with what the webhooks are told (docs/webhooks.md). */
  private recordFlip(domain: string, check: DomainCheck, at: Date): Promise<NotedBlock> {
    const notice: FlipNotice = {
      watchedSince: new Date(at.getTime() - this.options.webhookWatchDays * DAY_MS),
      record: stamped(check, at).record as unknown as FlipNotice["record"],
    };
    const policy = this.options.policy?.policyVersion();
    if (policy !== undefined) notice.policyVersion = policy;
    return this.options.records.noteBlock(domain, check.record.block, at, notice);
  }

  /**
   * Decides a watched domain again from its stored facts with the sources in force and
   * records a flip (with its webhook events); whether this call recorded one.
   */
  async redecide(watched: WatchedFacts, now: Date): Promise<boolean> {
    await this.sourcesLoading();
    if (watched.facts === null) return false;
    const check = this.decide(watched.domain, watched.facts, now);
    if (check.record.block === watched.block) return false;
    return (await this.recordFlip(watched.domain, check, now)).flipped;
  }

  private noteBlockStatus(known: KnownDomain, status: BlockStatus): void {
    known.block = status.block;
    known.changedAt = status.changedAt;
    known.decided = undefined;
  }

  private async read(domain: string, now: Date): Promise<KnownDomain | undefined> {
    const stored = await this.options.records.getFacts(domain);
    return stored && this.remembered.remember(domain, stored, now);
  }

  /** One look-up per domain at a time, in the lane of the caller who started it; its facts are saved and shared by every waiting caller. */
  private refresh(domain: string, previous: KnownDomain | undefined, lane?: Lane): Promise<KnownDomain> {
    return this.inFlight.share(domain, async () => {
      const { facts, later } = await this.budget.run(() => this.options.lookup(domain), lane);
      const now = this.options.clock();
      const version = this.sourcesVersion();
      const check = this.decide(domain, facts, now);
      if (failedForNow(facts, check.status)) {
        this.failedRecently.set(domain, true);
        if (previous && !failedForNow(previous.facts, this.decided(previous, now).status)) return previous;
      }
      const records = this.recordsFlipsOf(lane);
      const saved = await this.save(domain, facts, now, { version, check }, records);
      if (later) void this.track(this.saveLater(domain, later, records), domain);
      return saved;
    });
  }

  /** Saves the facts with the domain's age when they come after the answer. */
  private async saveLater(
    domain: string,
    later: Promise<DomainFacts | null>,
    records: boolean,
  ): Promise<void> {
    const facts = await later;
    if (facts === null) return;
    const now = this.options.clock();
    const version = this.sourcesVersion();
    await this.save(domain, facts, now, { version, check: this.decide(domain, facts, now) }, records);
  }

  /** Saves a look-up's facts with the block status decided from them, and remembers both; a flip only when `records`. */
  private async save(
    domain: string,
    facts: DomainFacts,
    checkedAt: Date,
    decided: { version: number; check: DomainCheck },
    records: boolean,
  ): Promise<KnownDomain> {
    const { version, check } = decided;
    let status = await this.options.records.saveFacts(domain, facts, checkedAt, check.record.block);
    // A stored domain keeps its block status through a save: its flip is recorded here, once.
    if (records && status.block !== check.record.block) {
      status = await this.recordFlip(domain, check, checkedAt);
    }
    const known = this.remembered.remember(domain, { facts, checkedAt, ...status }, checkedAt);
    if (status.block === check.record.block)
      known.decided = { version, check: stamped(check, status.changedAt) };
    if (check.evidence) {
      this.options.evidence?.observe({
        domain: check.evidence.domain,
        at: checkedAt,
        evidence: check.evidence,
      });
    }
    return known;
  }

  /** Work that finishes after its caller was answered: drained on shutdown, its errors reported. */
  private track(work: Promise<unknown>, domain: string): Promise<unknown> {
    const task = work
      .catch((error: unknown) => this.options.onBackgroundError?.(error, domain))
      .finally(() => this.background.delete(task));
    this.background.add(task);
    return task;
  }

  /** Starts a refresh unless one runs for the domain or the refresh share of the lane's budget is taken. */
  private refreshInBackground(domain: string, previous: KnownDomain, lane?: Lane): void {
    if (this.inFlight.has(domain)) return;
    const refresh = this.budget.tryInBackground(() => this.refresh(domain, previous, lane), lane);
    if (refresh) void this.track(refresh, domain);
  }

  load(): CheckerLoad {
    const dns = this.options.dnsLoad?.() ?? { inFlight: 0, waiting: 0 };
    return {
      lookupsRunning: this.budget.running,
      lookupsWaiting: this.budget.waiting,
      refreshes: this.budget.refreshes,
      dnsInFlight: dns.inFlight,
      dnsWaiting: dns.waiting,
      observationsDropped: (this.options.observer?.dropped ?? 0) + (this.options.evidence?.dropped ?? 0),
    };
  }

  forgetRemembered(): void {
    this.remembered.forgetAll();
  }

  async reloadSources(which: SourcesKind): Promise<void> {
    const { learned, lists, accountLists } = this.options;
    if (which === "overrides") await learned?.reloadAfterChange();
    else if (which === "account_lists") await accountLists?.reloadAfterChange();
    else if (isChanging(lists)) await lists.reloadAfterChange();
  }

  async drain(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
    await Promise.all([this.options.observer?.flush(), this.options.evidence?.flush()]);
    // What the evidence just written teaches is in the snapshot once drain() resolves.
    await this.options.learned?.reloadAfterChange();
  }

  /**
   * Drains, then stops the checker's own loops: the observers' flushes, and the resolver
   * canary without waiting for a probe in flight (DNS only: a CLI command on cached
   * facts must not wait out a DNS deadline to exit).
   */
  async close(): Promise<void> {
    await this.drain();
    void this.resolverHealth?.stop();
    await Promise.all([this.options.observer?.close(), this.options.evidence?.close()]);
  }
}
