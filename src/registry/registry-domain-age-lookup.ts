/**
 * Domain age from the registries: RDAP first (routed by the IANA bootstrap), WHOIS
 * when the TLD has no RDAP or RDAP failed. Never slow and never a burden:
 * - one hard deadline per look-up covers RDAP and WHOIS together; past it the answer is null;
 * - at most 4 RDAP (2 WHOIS) queries in flight per registry and 64 waiting (more are
 *   refused at once, as a failure: registry-gates.ts); a 429 pauses that registry for
 *   its Retry-After (60 s when absent) and sends its domains to WHOIS meanwhile;
 * - found dates are cached 30 days (they do not change), unknown ages 10 minutes;
 * - concurrent look-ups of one domain share one query.
 * A registry's "not found" (404, or no registration date) is an answer: no WHOIS then.
 * On shutdown (`signal`) every look-up, queued or running, is aborted and answers null,
 * and later ones answer null at once: the process need not wait out their deadlines.
 */
import { LRUCache } from "lru-cache";
import type { DomainAge, DomainAgeLookup } from "../core/age.js";
import { type RdapBootstrap, rdapBaseUrlFor } from "./rdap-bootstrap.js";
import { fetchRdapRegistration, retryAfterMs } from "./rdap-client.js";
import { RegistryGates } from "./registry-gates.js";
import { queryWhois } from "./whois-client.js";
import { parseWhoisCreationDate } from "./whois-creation-date.js";
import { type WhoisServer, type WhoisServers, whoisServerFor } from "./whois-servers.js";

export interface RegistryDomainAgeLookupOptions {
  rdap: RdapBootstrap;
  whois: WhoisServers;
  /** WHOIS_SERVER: asked for every domain instead of the table. */
  whoisOverride?: WhoisServer | null;
  /** AGE_TIMEOUT_MS: the most one look-up may take. */
  deadlineMs: number;
  clock?: () => Date;
  /** Aborts when the service shuts down. */
  signal?: AbortSignal;
}

const RDAP_CONCURRENCY = 4;
const WHOIS_CONCURRENCY = 2;
/** Queries waiting per registry: more than a registry answers within a deadline is no use. */
const MAX_WAITING = 64;
const DEFAULT_BACK_OFF_MS = 60_000;
const FOUND_TTL_MS = 30 * 86_400_000;
const UNKNOWN_TTL_MS = 10 * 60_000;
const CACHE_SIZE = 10_000;

/** What the RDAP step settled: an age, a known absence, or nothing (try WHOIS). */
type RdapStep = DomainAge | "unknown" | "failed";

interface CacheEntry {
  age: DomainAge | null;
  expiresAt: number;
}

export class RegistryDomainAgeLookup implements DomainAgeLookup {
  private readonly clock: () => Date;
  private readonly rdapGates: RegistryGates;
  private readonly whoisGates: RegistryGates;
  private readonly cache = new LRUCache<string, CacheEntry>({ max: CACHE_SIZE });
  private readonly inFlight = new Map<string, Promise<DomainAge | null>>();
  /** Ends each look-up under way at once (shutdown). */
  private readonly stoppers = new Set<() => void>();

  constructor(private readonly options: RegistryDomainAgeLookupOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.rdapGates = new RegistryGates(RDAP_CONCURRENCY, MAX_WAITING, this.clock);
    this.whoisGates = new RegistryGates(WHOIS_CONCURRENCY, MAX_WAITING, this.clock);
    options.signal?.addEventListener("abort", () => {
      for (const stop of this.stoppers) stop();
    });
  }

  lookup(baseDomain: string): Promise<DomainAge | null> {
    if (this.options.signal?.aborted) return Promise.resolve(null);
    const domain = baseDomain.toLowerCase().replace(/\.$/, "");
    const cached = this.cache.get(domain);
    if (cached && cached.expiresAt > this.clock().getTime()) return Promise.resolve(cached.age);
    const pending = this.inFlight.get(domain);
    if (pending) return pending;
    const lookup = this.withinDeadline(domain).then((age) => {
      const ttl = age ? FOUND_TTL_MS : UNKNOWN_TTL_MS;
      this.cache.set(domain, { age, expiresAt: this.clock().getTime() + ttl });
      this.inFlight.delete(domain);
      return age;
    });
    this.inFlight.set(domain, lookup);
    return lookup;
  }

  private async withinDeadline(domain: string): Promise<DomainAge | null> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let stop = () => {};
    const deadline = new Promise<null>((resolve) => {
      stop = () => {
        controller.abort();
        resolve(null);
      };
      timer = setTimeout(stop, this.options.deadlineMs);
    });
    this.stoppers.add(stop);
    try {
      return await Promise.race([this.query(domain, controller.signal).catch(() => null), deadline]);
    } finally {
      // Nothing is left to cancel: the query finished, or the deadline aborted it. (An
      // abort costs an AbortError with its stack trace, on every look-up.)
      clearTimeout(timer);
      this.stoppers.delete(stop);
    }
  }

  private async query(domain: string, signal: AbortSignal): Promise<DomainAge | null> {
    const rdap = await this.queryRdap(domain, signal);
    if (rdap === "unknown") return null;
    if (rdap !== "failed") return rdap;
    const server = this.options.whoisOverride ?? whoisServerFor(this.options.whois, domain);
    if (!server || signal.aborted) return null;
    const text = await this.whoisGates.run(`${server.host}:${server.port}`, signal, () =>
      queryWhois(server, domain, signal),
    );
    if (text === undefined) return null;
    const createdAt = parseWhoisCreationDate(text);
    return createdAt ? { createdAt, source: "whois" } : null;
  }

  private async queryRdap(domain: string, signal: AbortSignal): Promise<RdapStep> {
    const baseUrl = rdapBaseUrlFor(this.options.rdap, domain);
    if (baseUrl === undefined) return "failed";
    const registry = new URL(baseUrl).host;
    if (this.rdapGates.isBackedOff(registry)) return "failed";
    const answer = await this.rdapGates.run(registry, signal, () =>
      fetchRdapRegistration(baseUrl, domain, signal),
    );
    switch (answer?.kind) {
      case undefined:
        return "failed";
      case "registered":
        return { createdAt: answer.createdAt, source: "rdap" };
      case "not-found":
      case "no-date":
        return "unknown";
      case "rate-limited":
        this.rdapGates.backOff(registry, retryAfterMs(answer.retryAfter, this.clock(), DEFAULT_BACK_OFF_MS));
        return "failed";
      case "failed":
        return "failed";
    }
  }
}
