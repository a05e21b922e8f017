/**
 * Wires the engine from configuration: bundled lists, DNS over the wire, domain age,
 * and the record cache on the store. The server and the CLI both start here, so a
 * `mailrisk check` sees exactly what the API sees.
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { loadDomainLists } from "../data/domain-lists.js";
import type { Store } from "../store/types.js";
import { createDomainAgeLookup } from "./age/index.js";
import { CachingChecker } from "./caching-checker.js";
import { type CheckDeps, checkDomain } from "./check.js";
import type { Checker } from "./checker.js";
import type { DomainLists } from "./lists.js";
import { NodeDnsResolver } from "./node-dns-resolver.js";
import { TypoIndex } from "./typo.js";

export interface CreateCheckerOptions {
  config: Config;
  store: Store;
  logger?: Logger;
  /** Already loaded lists (tests and benchmarks share one load). */
  lists?: DomainLists;
  clock?: () => Date;
}

/** The engine's dependencies from configuration. */
export function createCheckDeps(config: Config, lists: DomainLists, clock: () => Date): CheckDeps {
  return {
    lists,
    typos: new TypoIndex(lists.popular),
    resolver: new NodeDnsResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
    age: createDomainAgeLookup({
      bootstrapFile: config.rdapBootstrapFile,
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
    store: options.store,
    lists,
    lookup: (domain) => checkDomain(domain, deps),
    clock,
    ttlSeconds: options.config.recordTtlSeconds,
    onBackgroundError: (error, domain) =>
      options.logger?.warn({ err: error, domain }, "background refresh failed"),
  });
}
