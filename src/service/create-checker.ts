/**
 * Wires the engine from configuration: bundled lists, DNS over the wire, domain age,
 * and the record cache on the store. The server and the CLI both start here, so a
 * `mailrisk check` sees exactly what the API sees.
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { CheckDeps } from "../core/check.js";
import type { DomainLists } from "../core/lists.js";
import { TypoIndex } from "../core/typo.js";
import { loadDomainLists } from "../data/domain-lists.js";
import { rdapBootstrapFileToRead } from "../data/registry-files.js";
import { NodeDnsResolver, type ResolverLoad } from "../dns/node-dns-resolver.js";
import type { Store } from "../store/types.js";
import { lookupWithinAgeBudget } from "./age-budget.js";
import { CachingChecker } from "./cached-checker.js";
import type { Checker } from "./checker.js";
import { createDomainAgeLookup } from "./domain-age.js";
import { LearnedSnapshot } from "./learned-snapshot.js";
import { type EvidenceObservation, evidenceSink, Observer, recentSink } from "./observer.js";
import { GuardedResolver, ResolverHealth } from "./resolver-health.js";

export interface CreateCheckerOptions {
  config: Config;
  store: Pick<Store, "records" | "recent" | "infrastructure" | "overrides">;
  logger?: Logger;
  /** Already loaded lists (tests and benchmarks share one load). */
  lists?: DomainLists;
  clock?: () => Date;
  /** Look-ups at a time, callers' and background refreshes together (see CachingChecker). */
  lookupConcurrency?: number;
  /** false: a stale record is looked up again before it is answered (batch runs). */
  serveStale?: boolean;
}

/**
 * Big providers whose MX certainly exists (all on the curated free list): the canary
 * that tells a broken resolver from a world without domains.
 */
export const CANARY_DOMAINS = ["gmail.com", "outlook.com", "yahoo.com"] as const;

/** The engine's dependencies from configuration; the resolver answers "does not exist" only while the canary is sound. */
export function createCheckDeps(
  config: Config,
  lists: DomainLists,
  clock: () => Date,
): CheckDeps & { resolverHealth: ResolverHealth; dnsLoad: () => ResolverLoad } {
  const wire = new NodeDnsResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
  const resolverHealth = new ResolverHealth({ resolver: wire, canaries: CANARY_DOMAINS, clock });
  return {
    lists,
    typos: new TypoIndex(lists.popular),
    resolver: new GuardedResolver(wire, resolverHealth),
    resolverHealth,
    dnsLoad: () => wire.load,
    age: config.ageLookup
      ? createDomainAgeLookup({
          bootstrapFile: rdapBootstrapFileToRead(config),
          whoisServer: config.whoisServer,
          timeoutMs: config.ageTimeoutMs,
          clock,
        })
      : undefined,
    clock,
  };
}

export function createChecker(options: CreateCheckerOptions): Checker {
  const clock = options.clock ?? (() => new Date());
  const lists = options.lists ?? loadDomainLists();
  // What was learnt from traffic, reloaded from the store while checks come (docs/verdicts.md).
  const learned = new LearnedSnapshot({
    store: options.store,
    clock,
    onError: (error) =>
      options.logger?.warn({ err: error }, "could not reload learnt infrastructure and overrides"),
  });
  const deps = createCheckDeps(options.config, lists, clock);
  deps.resolverHealth.start();
  return new CachingChecker({
    records: options.store.records,
    resolverHealth: deps.resolverHealth,
    observer: new Observer({
      sinks: [recentSink(options.store.recent)],
      onSinkError: (error) => options.logger?.warn({ err: error }, "could not write observed checks"),
    }),
    evidence: new Observer<EvidenceObservation>({
      sinks: [evidenceSink(options.store.infrastructure)],
      onSinkError: (error) => options.logger?.warn({ err: error }, "could not write infrastructure evidence"),
    }),
    learned,
    lists,
    typos: deps.typos,
    lookup: (domain) => lookupWithinAgeBudget(domain, deps.resolver, deps.age ?? null),
    clock,
    ttlSeconds: options.config.recordTtlSeconds,
    negativeTtlSeconds: options.config.negativeTtlSeconds,
    lookupConcurrency: options.lookupConcurrency,
    serveStale: options.serveStale,
    dnsLoad: deps.dnsLoad,
    onBackgroundError: (error, domain) =>
      options.logger?.warn({ err: error, domain }, "background refresh failed"),
  });
}
