/**
 * Signals: everything the verdict is decided from, gathered from the bundled lists,
 * the mail routing DNS gave, and the domain's age. Pure: no I/O happens here.
 */
import { getDomain } from "tldts";
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

function registrable(host: string): string {
  return getDomain(host, { allowPrivateDomains: false }) ?? host;
}

function mailHostNames(routing: MailRouting): string[] {
  return routing.status === "mx" ? routing.hosts.map((h) => h.host) : [];
}

/** Every independent sign that the domain's mail or DNS runs on a disposable service. */
function disposableHints(sources: SignalSources, routing: MailRouting, baseDomain: string): DisposableHint[] {
  const hints: DisposableHint[] = [];
  const seen = new Set<string>();
  const consider = (kind: "MX" | "NS", host: string): void => {
    const hostBase = registrable(host);
    if (hostBase === baseDomain) return;
    const infrastructure = sources.lists.disposableInfrastructure(host);
    const listed = infrastructure ? undefined : sources.lists.disposable(host, hostBase);
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

function parkingService(lists: DomainLists, routing: MailRouting): string | undefined {
  for (const host of [...(routing.nameServers ?? []), ...mailHostNames(routing)]) {
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
  const ownsMailHost =
    routing.status === "fallback" || hosts.some((host) => registrable(host) === baseDomain);
  const disposable = knownGood ? undefined : lists.disposable(domain, baseDomain);
  const isProvider = knownGood || CATEGORIES.some((c) => categories[c] !== undefined);
  return {
    domain,
    baseDomain,
    routing,
    knownGood,
    disposable,
    disposableHints: knownGood || disposable ? [] : disposableHints(sources, routing, baseDomain),
    categories,
    mxProvider,
    selfHosted: ownsMailHost && mxProvider === undefined,
    parking: knownGood ? undefined : parkingService(lists, routing),
    mxUnresolvable: routing.status === "mx" && routing.hosts.every((h) => h.ips.length === 0),
    typos: isProvider || disposable ? [] : sources.typos.suggest(baseDomain),
    createdAt,
  };
}
