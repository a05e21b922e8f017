/**
 * Name servers that do not answer, remembered briefly (docs/security.md, "Fair
 * look-ups"), so that a flood of names under them costs one time-out, not thousands.
 *
 * A look-up is *quiet* when the domain's own MX, A and AAAA queries all ran into the
 * deadline (status `dns_timeout` without hosts or addresses). For `rememberMs` (60 s)
 * after one, two keys answer `dns_timeout` at once, without a query:
 *
 * - the domain's registrable domain (`x1.evil.com`, `x2.evil.com`, … after one of them);
 * - the quiet domain's name-server set, when the resolver answered its NS query: while
 *   any set is remembered, a look-up asks the registrable domain's NS first (one query
 *   the resolver usually answers from the parent's delegation) and stops there when the
 *   set is a quiet one (`a.com`, `b.net`, … all delegated to the same silent servers).
 *   An NS query that itself runs into the deadline in that mode makes the domain quiet too.
 *
 * A quiet answer is a temporary failure like any time-out: kept 60 s, never replacing
 * good stored facts (freshness.ts). Both maps are bounded (least recently used forgotten).
 */
import { LRUCache } from "lru-cache";
import { lookupRouting } from "../../core/check.js";
import type { DnsAnswer, DnsResolver } from "../../core/dns.js";
import type { MailRouting } from "../../core/mail-routing.js";
import { suffixFacts } from "../../core/names.js";
import type { NameRules } from "../../core/reserved-names.js";

export interface QuietZonesOptions {
  clock: () => Date;
  /** How long a quiet zone or name-server set is remembered; default 60 s. */
  rememberMs?: number;
  /** Zones and name-server sets remembered, each; default 10,000. */
  max?: number;
}

export const QUIET_REMEMBER_MS = 60_000;

function nameServerKey(nameServers: readonly string[]): string {
  return [...nameServers].sort().join(" ");
}

/** The routing of a domain whose servers did not answer within the deadline. */
function quietRouting(nameServers: string[] | null): MailRouting {
  return { status: "dns_timeout", hosts: [], nameServers, addresses: [] };
}

/** Whether none of the domain's own queries was answered within the deadline. */
function isQuiet(routing: MailRouting): boolean {
  return routing.status === "dns_timeout" && routing.hosts.length === 0 && routing.addresses.length === 0;
}

/** The resolver with one NS answer already known. */
function withNameServers(resolver: DnsResolver, zone: string, answer: DnsAnswer<string>): DnsResolver {
  return {
    mx: (name) => resolver.mx(name),
    a: (name) => resolver.a(name),
    aaaa: (name) => resolver.aaaa(name),
    ns: (name) => (name === zone ? Promise.resolve(answer) : resolver.ns(name)),
  };
}

export class QuietZones {
  private readonly zones: LRUCache<string, true>;
  private readonly nameServerSets: LRUCache<string, true>;
  private readonly rememberMs: number;
  /** Until when some name-server set is remembered: look-ups ask NS first until then. */
  private nameServersFirstUntil = 0;

  constructor(private readonly options: QuietZonesOptions) {
    this.rememberMs = options.rememberMs ?? QUIET_REMEMBER_MS;
    const memory = {
      max: options.max ?? 10_000,
      ttl: this.rememberMs,
      ttlResolution: 0,
      perf: { now: () => options.clock().getTime() },
    };
    this.zones = new LRUCache(memory);
    this.nameServerSets = new LRUCache(memory);
  }

  /** The domain's mail routing (core/mail-routing.ts), or `dns_timeout` at once when its zone or name servers are quiet. */
  async lookupRouting(domain: string, resolver: DnsResolver, rules: NameRules): Promise<MailRouting> {
    const zone = suffixFacts(domain).baseDomain;
    if (this.zones.has(zone)) return quietRouting(null);
    let asked = resolver;
    if (this.options.clock().getTime() < this.nameServersFirstUntil) {
      const ns = await resolver.ns(zone);
      if (!ns.ok && ns.code === "timeout") {
        this.zones.set(zone, true);
        return quietRouting(null);
      }
      if (ns.ok && ns.records.length > 0 && this.nameServerSets.has(nameServerKey(ns.records))) {
        this.zones.set(zone, true);
        return quietRouting(ns.records.slice().sort());
      }
      asked = withNameServers(resolver, zone, ns);
    }
    const routing = await lookupRouting(domain, asked, rules);
    if (isQuiet(routing)) this.remember(zone, routing.nameServers);
    return routing;
  }

  private remember(zone: string, nameServers: string[] | null): void {
    this.zones.set(zone, true);
    if (nameServers === null || nameServers.length === 0) return;
    this.nameServerSets.set(nameServerKey(nameServers), true);
    this.nameServersFirstUntil = this.options.clock().getTime() + this.rememberMs;
  }
}
