/**
 * Signals: everything the verdict is decided from, gathered from the bundled lists,
 * the mail routing DNS gave, and the domain's age. Pure: no I/O happens here.
 */
import { baseDomainOf, isPublicSuffix } from "../data/names.js";
import type { DomainLists, DomainMatch, MxProvider, ProviderCategory } from "./lists.js";
import type { MailRouting } from "./mail-routing.js";
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

const CATEGORIES: readonly ProviderCategory[] = [
  "free",
  "premium",
  "business",
  "isp",
  "email_api",
  "web_hosting",
  "forwarder",
];

/**
 * Whether the host's registrable domain is `baseDomain`. That domain is the host itself
 * or one of its parents, so the Public Suffix List is only asked about a host that is
 * `baseDomain` or under it (the hot path: most MX and NS hosts are someone else's).
 */
function isOwnHost(host: string, baseDomain: string): boolean {
  const within =
    host === baseDomain || (host.endsWith(baseDomain) && host[host.length - baseDomain.length - 1] === ".");
  return within && baseDomainOf(host) === baseDomain;
}

/** The MX hosts DNS named (also when their addresses could not be looked up); none for the fallback. */
function mailHostNames(routing: MailRouting): string[] {
  return routing.status === "fallback" ? [] : routing.hosts.map((h) => h.host);
}

/** Every independent sign that the domain's mail or DNS runs on a disposable service. */
function disposableHints(sources: SignalSources, routing: MailRouting, baseDomain: string): DisposableHint[] {
  const hints: DisposableHint[] = [];
  const seen = new Set<string>();
  const consider = (kind: "MX" | "NS", host: string): void => {
    if (isOwnHost(host, baseDomain)) return;
    const infrastructure = sources.lists.disposableInfrastructure(host);
    const listed = infrastructure ? undefined : sources.lists.disposable(host, baseDomainOf(host));
    const provider = infrastructure ?? listed?.entry;
    // One hint per kind and provider: three MX hosts of one service are one signal.
    if (provider === undefined || seen.has(`${kind} ${provider}`)) return;
    seen.add(`${kind} ${provider}`);
    hints.push({ evidence: `${kind} ${host}`, provider });
  };
  for (const host of mailHostNames(routing)) consider("MX", host);
  for (const host of routing.nameServers ?? []) consider("NS", host);
  return hints;
}

function parkingService(lists: DomainLists, routing: MailRouting, baseDomain: string): string | undefined {
  for (const host of [...(routing.nameServers ?? []), ...mailHostNames(routing)]) {
    // A parking service's own domain runs on its own servers: that is not parking.
    if (isOwnHost(host, baseDomain)) continue;
    const service = lists.parkingHost(host);
    if (service) return service;
  }
  for (const ip of routing.addresses) {
    const service = lists.parkingAddress(ip);
    if (service) return service;
  }
  return undefined;
}

export function gatherSignals(
  sources: SignalSources,
  domain: string,
  baseDomain: string,
  routing: MailRouting,
  createdAt: Date | null,
): Signals {
  const { lists } = sources;
  const knownGood = lists.isKnownGood(domain, baseDomain);
  const categories = Object.fromEntries(
    CATEGORIES.map((category) => [category, lists.category(category, domain, baseDomain)]),
  ) as Record<ProviderCategory, DomainMatch | undefined>;
  const hosts = mailHostNames(routing);
  const mxProvider = hosts.map((host) => lists.mxProvider(host)).find((p) => p !== undefined);
  const ownsMailHost = routing.status === "fallback" || hosts.some((host) => isOwnHost(host, baseDomain));
  // Known-good domains and public suffixes are never disposable, parked or typos (SPEC §4.1).
  const exempt = knownGood || isPublicSuffix(domain);
  const disposable = exempt ? undefined : lists.disposable(domain, baseDomain);
  const isProvider = CATEGORIES.some((c) => categories[c] !== undefined);
  return {
    domain,
    baseDomain,
    routing,
    knownGood,
    disposable,
    disposableHints: exempt || disposable ? [] : disposableHints(sources, routing, baseDomain),
    categories,
    mxProvider,
    selfHosted: ownsMailHost && mxProvider === undefined,
    parking: exempt ? undefined : parkingService(lists, routing, baseDomain),
    mxUnresolvable: routing.status === "mx" && routing.hosts.every((h) => h.ips.length === 0),
    // A listed typo domain (gmial.com) still gets its suggestion: SPEC §4's own example.
    typos: exempt || isProvider ? [] : sources.typos.suggest(baseDomain),
    createdAt,
  };
}
