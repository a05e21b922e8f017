/**
 * Wires the engine from configuration: bundled lists, DNS over the wire, domain age,
 * and the record cache on the store. The server and the CLI both start here, so a
 * `mailrisk check` sees exactly what the API sees.
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { type CheckDeps, checkDomain } from "../core/check.js";
import type { DomainLists } from "../core/lists.js";
import { TypoIndex } from "../core/typo.js";
import { loadDomainLists } from "../data/domain-lists.js";
import { rdapBootstrapFileToRead } from "../data/registry-files.js";
import { NodeDnsResolver } from "../dns/node-dns-resolver.js";
import type { Store } from "../store/types.js";
import { CachingChecker } from "./cached-checker.js";
import type { Checker } from "./checker.js";
import { createDomainAgeLookup } from "./domain-age.js";
import { Observer, recentSink } from "./observer.js";

export interface CreateCheckerOptions {
  config: Config;
  store: Pick<Store, "records" | "recent">;
  logger?: Logger;
  /** Already loaded lists (tests and benchmarks share one load). */
  lists?: DomainLists;
  clock?: () => Date;
  /** Look-ups at a time, callers' and background refreshes together (see CachingChecker). */
  lookupConcurrency?: number;
  /** false: a stale record is looked up again before it is answered (batch runs). */
  serveStale?: boolean;
}

/** The engine's dependencies from configuration. */
export function createCheckDeps(config: Config, lists: DomainLists, clock: () => Date): CheckDeps {
  return {
    lists,
    typos: new TypoIndex(lists.popular),
    resolver: new NodeDnsResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
    age: createDomainAgeLookup({
      bootstrapFile: rdapBootstrapFileToRead(config),
      whoisServer: config.whoisServer,
      timeoutMs: config.ageTimeoutMs,
      clock,
    }),
    clock,
  };
}

export function createChecker(options: CreateCheckerOptions): Checker {
  const clock = options.clock ?? (() => new Date());
  const lists = options.lists ?? loadDomainLists();
  const deps = createCheckDeps(options.config, lists, clock);
  return new CachingChecker({
    records: options.store.records,
    observer: new Observer({
      sinks: [recentSink(options.store.recent)],
      onSinkError: (error) => options.logger?.warn({ err: error }, "could not write observed checks"),
    }),
    lists,
    lookup: (domain) => checkDomain(domain, deps),
    clock,
    ttlSeconds: options.config.recordTtlSeconds,
    lookupConcurrency: options.lookupConcurrency,
    serveStale: options.serveStale,
    onBackgroundError: (error, domain) =>
      options.logger?.warn({ err: error, domain }, "background refresh failed"),
  });
}
