/**
 * Wires the engine from configuration: the lists in force, DNS over the wire, domain age,
 * and the record cache on the store. The server and the CLI both start here, so a
 * `mailrisk check` sees exactly what the API sees.
 */
import { getServers } from "node:dns";
import type { Logger } from "pino";
import type { Config } from "../../config.js";
import type { CheckDeps } from "../../core/check.js";
import type { DomainLists } from "../../core/list-interfaces.js";
import { TypoIndex } from "../../core/typo.js";
import { domainListData, readListData } from "../../data/read-domain-lists.js";
import { rdapBootstrapFileToRead } from "../../data/registry-files.js";
import { NodeDnsResolver, type ResolverLoad } from "../../dns/node-dns-resolver.js";
import type { Store } from "../../store/index.js";
import { AccountListsInMemory } from "../accounts/account-lists-in-memory.js";
import { ListsInForce } from "../lists/lists-in-force.js";
import { AGE_WAIT_MS, lookupWithinAgeBudget } from "./age-budget.js";
import {
  answeredSink,
  type EvidenceObservation,
  evidenceSink,
  keepPagesVia,
  Observer,
  recentSink,
} from "./batched-observer.js";
import { CachingChecker, type PolicyInForce } from "./cached-checker.js";
import { createDomainAgeLookup } from "./domain-age.js";
import { LearnedSnapshot } from "./learned-snapshot.js";
import type { GivesWayTo } from "./lookup-budget.js";
import { QuietZones } from "./quiet-zones.js";
import {
  describeResolverState,
  GuardedResolver,
  ResolverHealth,
  type ResolverHealthReport,
  type ResolverState,
} from "./resolver-health.js";

export interface CreateCheckerOptions {
  config: Config;
  /** With `accountLists`, a check whose lane names an account follows its own list (the server's). */
  store: Pick<Store, "records" | "recent" | "infrastructure" | "overrides" | "lists"> &
    Partial<Pick<Store, "accountLists">>;
  logger?: Logger;
  /** Already loaded lists (tests and benchmarks share one load); default the lists in force (bundled and synced). */
  lists?: DomainLists;
  clock?: () => Date;
  /** Look-ups at a time of the API budget, callers' and background refreshes together (see CachingChecker). */
  lookupConcurrency?: number;
  /** The API's requests in progress, which the list jobs' look-ups give way to. */
  jobsGiveWayTo?: GivesWayTo;
  /** false: a stale record is looked up again before it is answered (batch runs). */
  serveStale?: boolean;
  /** Aborts when the server shuts down: domain-age look-ups queued or running end at once. */
  shutdown?: AbortSignal;
  /** The policy the server's change watcher has taken in (CachingCheckerOptions.policy). */
  policy?: PolicyInForce;
  /** Whether answers in the API's lane record block-status flips (CachingCheckerOptions.recordsFlips): the server only. */
  recordsFlips?: boolean;
  /** Told, with a sentence for a person, when the database's list policy differs from LIST_SOURCES; default logged at warn. */
  onPolicyDiffers?: (message: string) => void;
  /**
   * Told of the resolver canary's first state and every change, with a sentence for a
   * person (naming DNS_SERVERS). Default: logged, a failure at warn, `ok` at info.
   */
  onResolverState?: (
    report: ResolverHealthReport,
    previous: ResolverState | undefined,
    message: string,
  ) => void;
}

/**
 * Big providers whose MX certainly exists (all on the curated free list): the canary
 * that tells a broken resolver from a world without domains.
 */
export const CANARY_DOMAINS = ["gmail.com", "outlook.com", "yahoo.com"] as const;

/** The resolvers DNS goes to, for a person: DNS_SERVERS, or the system's. */
export function resolverServers(config: Pick<Config, "dnsServers">): string {
  if (config.dnsServers.length > 0) return `DNS_SERVERS=${config.dnsServers.join(",")}`;
  const system = getServers();
  return `the system's, ${system.length > 0 ? system.join(", ") : "none configured"} (DNS_SERVERS unset)`;
}

/** The engine's dependencies from configuration; the resolver answers "does not exist" only while the canary is sound. */
export function createCheckDeps(
  config: Config,
  lists: DomainLists,
  clock: () => Date,
  onStateChange?: (report: ResolverHealthReport, previous: ResolverState | undefined) => void,
  shutdown?: AbortSignal,
): CheckDeps & { resolverHealth: ResolverHealth; dnsLoad: () => ResolverLoad } {
  const wire = new NodeDnsResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
  const resolverHealth = new ResolverHealth({
    resolver: wire,
    canaries: CANARY_DOMAINS,
    clock,
    ...(onStateChange ? { onStateChange } : {}),
  });
  return {
    lists,
    typos: new TypoIndex(lists.popular, lists.lookAlikeTargets),
    resolver: new GuardedResolver(wire, resolverHealth),
    resolverHealth,
    dnsLoad: () => wire.load,
    age: config.ageLookup
      ? createDomainAgeLookup({
          bootstrapFile: rdapBootstrapFileToRead(config),
          whoisServer: config.whoisServer,
          timeoutMs: config.ageTimeoutMs,
          clock,
          signal: shutdown,
        })
      : undefined,
    clock,
    testNames: config.testNames,
  };
}

/** Why a process decides with other synced sources than its LIST_SOURCES names (docs/data.md, "Who sets the policy"). */
export function describePolicyDifference(configured: readonly string[], policy: readonly string[]): string {
  const names = (sources: readonly string[]) => (sources.length > 0 ? sources.join(",") : "none");
  return (
    `LIST_SOURCES here names ${names(configured)}, but the database's list policy (set by the last sync) names ` +
    `${names(policy)}, and the policy decides here`
  );
}

export function createChecker(options: CreateCheckerOptions): CachingChecker {
  const clock = options.clock ?? (() => new Date());
  const lists =
    options.lists ??
    new ListsInForce({
      bundled: domainListData(readListData()),
      store: options.store,
      sources: options.config.listSources.map((s) => s.name),
      onError: (error) => options.logger?.warn({ err: error }, "could not load the synced lists in force"),
      onPolicyDiffers: (configured, policy) => {
        const message = describePolicyDifference(configured, policy);
        if (options.onPolicyDiffers) options.onPolicyDiffers(message);
        else options.logger?.warn({ listSources: configured, listPolicy: policy }, message);
      },
    });
  // What was learnt from traffic, reloaded from the store while checks come (docs/verdicts.md).
  const learned = new LearnedSnapshot({
    store: options.store,
    clock,
    onError: (error) =>
      options.logger?.warn({ err: error }, "could not reload learnt infrastructure and overrides"),
  });
  const servers = resolverServers(options.config);
  const tell =
    options.onResolverState ??
    ((report: ResolverHealthReport, _previous: ResolverState | undefined, message: string) => {
      const fields = { dnsState: report.state, dnsServers: servers, canaries: report.canaries };
      if (report.state === "ok") options.logger?.info(fields, message);
      else options.logger?.warn(fields, message);
    });
  const deps = createCheckDeps(
    options.config,
    lists,
    clock,
    (report, previous) => tell(report, previous, describeResolverState(report, previous, servers)),
    options.shutdown,
  );
  deps.resolverHealth.start();
  const quietZones = new QuietZones({ clock });
  return new CachingChecker({
    records: options.store.records,
    resolverHealth: deps.resolverHealth,
    observer: new Observer({
      sinks: [
        recentSink(options.store.recent, { fromApi: options.config.recentFromApi }),
        answeredSink(options.store.records),
      ],
      merge: keepPagesVia,
      onSinkError: (error) => options.logger?.warn({ err: error }, "could not write observed checks"),
    }),
    evidence: new Observer<EvidenceObservation>({
      sinks: [evidenceSink(options.store.infrastructure)],
      onSinkError: (error) => options.logger?.warn({ err: error }, "could not write infrastructure evidence"),
    }),
    learned,
    lists,
    typos: deps.typos,
    lookup: (domain) =>
      lookupWithinAgeBudget(domain, deps.resolver, deps, deps.age ?? null, AGE_WAIT_MS, quietZones),
    clock,
    ttlSeconds: options.config.recordTtlSeconds,
    negativeTtlSeconds: options.config.negativeTtlSeconds,
    lookupConcurrency: options.lookupConcurrency,
    pageLookupConcurrency: options.config.pageLookupConcurrency,
    jobsGiveWayTo: options.jobsGiveWayTo,
    serveStale: options.serveStale,
    dnsLoad: deps.dnsLoad,
    webhookWatchDays: options.config.webhookWatchDays,
    testNames: options.config.testNames,
    policy: options.policy,
    recordsFlips: options.recordsFlips,
    ...(options.store.accountLists && { accountLists: new AccountListsInMemory(options.store.accountLists) }),
    onBackgroundError: (error, domain) =>
      options.logger?.warn({ err: error, domain }, "background refresh failed"),
  });
}
