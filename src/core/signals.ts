/**
 * Signals: everything the verdict is decided from, gathered from the bundled lists,
 * the mail routing DNS gave, and the domain's age. Pure: no I/O happens here.
 */

import type {
  DomainFacts,
  DomainLists,
  DomainMatch,
  HostFacts,
  MxProvider,
  ProviderCategory,
} from "./lists.js";
import type { MailRouting } from "./mail-routing.js";
import type { SuffixFacts } from "./names.js";
import type { TypoIndex } from "./typo.js";

export interface DisposableHint {
  /** What was seen, e.g. `MX mx1.mailinator.com`. */
  evidence: string;
  /** The disposable service's domain or name. */
  provider: string;
}

export interface Signals {
  domain: string;
  baseDomain: string;
  routing: MailRouting;
  knownGood: boolean;
  disposable: DomainMatch | undefined;
  /** Independent signs of a disposable service for a domain that is not listed. */
  disposableHints: DisposableHint[];
  categories: Record<ProviderCategory, DomainMatch | undefined>;
  mxProvider: MxProvider | undefined;
  selfHosted: boolean;
  /** Parking service name, when NS, MX or address points at one. */
  parking: string | undefined;
  /** MX records exist but none of their hosts resolves to an address. */
  mxUnresolvable: boolean;
  typos: string[];
  createdAt: Date | null;
}

export interface SignalSources {
  lists: DomainLists;
  typos: TypoIndex;
}

/** The MX hosts DNS named (also when their addresses could not be looked up); none for the fallback. */
function mailHostNames(routing: MailRouting): string[] {
  return routing.status === "fallback" ? [] : routing.hosts.map((h) => h.host);
}

/** A host DNS named, with what the lists say of it: looked up once per check. */
interface SeenHost {
  host: string;
  facts: HostFacts;
}

function seenHosts(lists: DomainLists, hosts: readonly string[]): SeenHost[] {
  return hosts.map((host) => ({ host, facts: lists.hostFacts(host) }));
}

/**
 * Every independent sign that the domain's mail or DNS runs on a disposable service: an
 * MX or NS host on disposable infrastructure or under a listed disposable domain. Hosts
 * under the domain's own base domain do not count; one hint per kind and provider (three
 * MX hosts of one service are one signal).
 */
function disposableHints(
  mx: readonly SeenHost[],
  ns: readonly SeenHost[],
  baseDomain: string,
): DisposableHint[] {
  const hints: DisposableHint[] = [];
  for (const [kind, seen] of [
    ["MX", mx],
    ["NS", ns],
  ] as const) {
    const providers: string[] = [];
    for (const { host, facts } of seen) {
      const provider = facts.disposableService;
      if (provider === undefined || facts.baseDomain === baseDomain || providers.includes(provider)) continue;
      providers.push(provider);
      hints.push({ evidence: `${kind} ${host}`, provider });
    }
  }
  return hints;
}

/**
 * The parking service the name servers, MX hosts or addresses point at, in that order;
 * a parking service's own domain runs on its own servers, which is not parking.
 */
function parkingService(
  lists: DomainLists,
  mx: readonly SeenHost[],
  ns: readonly SeenHost[],
  addresses: readonly string[],
  baseDomain: string,
): string | undefined {
  for (const seen of [ns, mx]) {
    for (const { facts } of seen) {
      if (facts.parkingService !== undefined && facts.baseDomain !== baseDomain) return facts.parkingService;
    }
  }
  for (const ip of addresses) {
    const service = lists.parkingAddress(ip);
    if (service) return service;
  }
  return undefined;
}

function isProvider(categories: DomainFacts["categories"]): boolean {
  for (const category in categories) {
    if (categories[category as ProviderCategory] !== undefined) return true;
  }
  return false;
}

/** The checked domain as the Public Suffix List sees it. */
export interface CheckedDomain extends SuffixFacts {
  domain: string;
}

export function gatherSignals(
  sources: SignalSources,
  { domain, baseDomain, isPublicSuffix }: CheckedDomain,
  routing: MailRouting,
  createdAt: Date | null,
): Signals {
  const { lists } = sources;
  const { knownGood, disposable: listed, categories } = lists.domainFacts(domain, baseDomain);
  const mx = seenHosts(lists, mailHostNames(routing));
  let mxProvider: MxProvider | undefined;
  // Whether the domain's own base domain is its mail host: under it, or the fallback to itself.
  let ownsMailHost = routing.status === "fallback";
  for (const { facts } of mx) {
    mxProvider ??= facts.mxProvider;
    if (facts.baseDomain === baseDomain) ownsMailHost = true;
  }
  // Known-good domains and public suffixes are never disposable, parked or typos (docs/api.md §4.1).
  const exempt = knownGood || isPublicSuffix;
  const disposable = exempt ? undefined : listed;
  const ns = exempt ? [] : seenHosts(lists, routing.nameServers ?? []);
  return {
    domain,
    baseDomain,
    routing,
    knownGood,
    disposable,
    disposableHints: exempt || disposable ? [] : disposableHints(mx, ns, baseDomain),
    categories,
    mxProvider,
    selfHosted: ownsMailHost && mxProvider === undefined,
    parking: exempt ? undefined : parkingService(lists, mx, ns, routing.addresses, baseDomain),
    mxUnresolvable: routing.status === "mx" && routing.hosts.every((h) => h.ips.length === 0),
    // A listed typo domain (gmial.com) still gets its suggestion: docs/api.md §4's own example.
    typos: exempt || isProvider(categories) ? [] : sources.typos.suggest(baseDomain),
    createdAt,
  };
}
