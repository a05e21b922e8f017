/**
 * Signals: everything the verdict is decided from, gathered from the bundled lists,
 * the mail routing DNS gave, and the domain's age. Pure: no I/O happens here.
 */

import { CATEGORIES, inAnyCategory, type PerCategory } from "./categories.js";
import {
  type AccountList,
  type AccountOverride,
  type DomainOverride,
  type Evidence,
  type InfrastructureKind,
  type LearnedInfrastructure,
  type ListedStatus,
  NOTHING_LEARNED,
  overrideOf,
} from "./learned.js";
import type { DomainLists, DomainMatch, HostFacts, MxProvider } from "./list-interfaces.js";
import type { MailRouting } from "./mail-routing.js";
import type { SuffixFacts } from "./names.js";
import { mailHostsArePrivate, withPublicAddresses } from "./public-addresses.js";
import { type NameRules, neverReceivesMail } from "./reserved-names.js";
import type { TypoIndex } from "./typo.js";

export interface DisposableHint {
  /** What kind of infrastructure was seen: an MX host, an MX host's address, a name server. */
  kind: InfrastructureKind;
  /** The host name or address seen, e.g. `mx1.mailinator.com`. */
  value: string;
  /** Learnt from traffic (src/core/learned.ts), rather than curated infrastructure or a listed host. */
  learnt: boolean;
  /** The disposable service's domain or name. */
  provider: string;
}

/** Where a parked domain meets its parking service: a name server, an MX host, or one of its own addresses. */
export interface ParkedOn {
  kind: "ns" | "mx_host" | "address";
  value: string;
}

export interface Signals {
  domain: string;
  baseDomain: string;
  /** The mail routing DNS gave, with only its public addresses (src/core/public-addresses.ts). */
  routing: MailRouting;
  /** The mail hosts have addresses and none is public: mail from the internet cannot reach them (status `mx_private`). */
  mxPrivate: boolean;
  /** A reserved name that can never receive real mail (src/core/reserved-names.ts): status `reserved`. */
  reserved: boolean;
  knownGood: boolean;
  disposable: DomainMatch | undefined;
  /** Independent signs of a disposable service for a domain that is not listed. */
  disposableHints: DisposableHint[];
  categories: PerCategory<DomainMatch | undefined>;
  mxProvider: MxProvider | undefined;
  selfHosted: boolean;
  /** Parking service name, when NS, MX or address points at one. */
  parking: string | undefined;
  /** The name server, MX host or address that points at the parking service. */
  parkedOn?: ParkedOn;
  /** MX records exist but none of their hosts resolves to an address. */
  mxUnresolvable: boolean;
  typos: string[];
  createdAt: Date | null;
  /** The operator's override of the domain (allow: never blocked by lists or heuristics; deny: blocked). */
  operator?: DomainOverride;
  /**
   * The asking key's account's own list's entry of the domain, when the operator has no
   * override of it (the operator's wins): it decides like one, for that account alone.
   */
  account?: AccountOverride;
  /** What the check saw of the domain's mail infrastructure, for learning (MX answers only). */
  evidence?: Evidence;
}

export interface SignalSources extends NameRules {
  lists: DomainLists;
  typos: TypoIndex;
  /** Infrastructure learnt from traffic and the operator's overrides; default nothing. */
  learned?: LearnedInfrastructure;
  /** The asking key's account's own list; none for the pages, the CLI and keys without an account. */
  account?: AccountList;
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
 * MX or NS host on curated disposable infrastructure or under a listed disposable domain,
 * then an MX host or MX address learnt from traffic (`evidence` holds only hosts that
 * may be learnt). Hosts under the domain's own base domain and infrastructure the
 * operator marked never disposable do not count; one hint per kind and provider (three
 * MX hosts of one service are one signal). A learnt name server adds to other hints but
 * never makes one by itself: registrars' default name servers serve everyone.
 */
function disposableHints(
  mx: readonly SeenHost[],
  ns: readonly SeenHost[],
  baseDomain: string,
  evidence: Evidence | undefined,
  learned: LearnedInfrastructure,
): DisposableHint[] {
  const hints: DisposableHint[] = [];
  for (const [seen, kind] of [
    [mx, "mx_host"],
    [ns, "ns"],
  ] as const) {
    const providers: string[] = [];
    for (const { host, facts } of seen) {
      const provider = facts.disposableService;
      if (provider === undefined || facts.baseDomain === baseDomain || providers.includes(provider)) continue;
      if (learned.neverDisposable(kind, host)) continue;
      providers.push(provider);
      hints.push({ kind, value: host, learnt: false, provider });
    }
  }
  if (evidence === undefined || learned === NOTHING_LEARNED) return hints;
  learnedHint(hints, "mx_host", evidence.mxHosts, learned);
  learnedHint(hints, "mx_ip", evidence.mxIps, learned);
  if (hints.length > 0) learnedHint(hints, "ns", evidence.nameServers, learned);
  return hints;
}

/** One hint for the first value of a kind that was learnt disposable. */
function learnedHint(
  hints: DisposableHint[],
  kind: InfrastructureKind,
  values: readonly string[],
  learned: LearnedInfrastructure,
): void {
  for (const value of values) {
    const provider = learned.disposableService(kind, value);
    if (provider === undefined) continue;
    hints.push({ kind, value, learnt: true, provider });
    return;
  }
}

/** Values kept per kind of evidence: the first of a domain's MX hosts, addresses and name servers. */
const EVIDENCE_PER_KIND = 10;

/**
 * Whether a host may be learnt as disposable: not the domain's own, not a known mail
 * provider's, forwarder's or parking service's, not under a known-good or provider domain.
 */
function learnable({ facts }: SeenHost, baseDomain: string): boolean {
  return !(
    facts.baseDomain === baseDomain ||
    facts.vouchedFor ||
    facts.mxProvider !== undefined ||
    facts.parkingService !== undefined
  );
}

/** The evidence of a domain whose MX DNS answered (none for the fallback, failures or no mail). */
function evidenceOf(
  routing: MailRouting,
  mx: readonly SeenHost[],
  ns: readonly SeenHost[],
  baseDomain: string,
  listed: ListedStatus,
  service: string | null,
): Evidence | undefined {
  if (routing.status !== "mx") return undefined;
  const mxHosts: string[] = [];
  const mxIps: string[] = [];
  for (let index = 0; index < mx.length && mxHosts.length < EVIDENCE_PER_KIND; index++) {
    const seen = mx[index] as SeenHost;
    if (!learnable(seen, baseDomain)) continue;
    mxHosts.push(seen.host);
    for (const ip of routing.hosts[index]?.ips ?? []) {
      if (mxIps.length < EVIDENCE_PER_KIND && !mxIps.includes(ip)) mxIps.push(ip);
    }
  }
  const nameServers: string[] = [];
  for (const seen of ns) {
    if (nameServers.length < EVIDENCE_PER_KIND && learnable(seen, baseDomain)) nameServers.push(seen.host);
  }
  if (mxHosts.length === 0 && nameServers.length === 0) return undefined;
  return { domain: baseDomain, mxHosts, mxIps, nameServers, listed, service };
}

/** A parking service and where the domain meets it. */
interface Parking extends ParkedOn {
  service: string;
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
): Parking | undefined {
  for (const [seen, kind] of [
    [ns, "ns"],
    [mx, "mx_host"],
  ] as const) {
    for (const { host, facts } of seen) {
      if (facts.parkingService !== undefined && facts.baseDomain !== baseDomain) {
        return { service: facts.parkingService, kind, value: host };
      }
    }
  }
  for (const ip of addresses) {
    const service = lists.parkingAddress(ip);
    if (service) return { service, kind: "address", value: ip };
  }
  return undefined;
}

/** The checked domain as the Public Suffix List sees it. */
export interface CheckedDomain extends SuffixFacts {
  domain: string;
}

/**
 * A listed mailbox provider's own domain (gmail.com, outlook.com …) does not vanish: when
 * DNS says it does not exist or has no mail host at all, the resolver is wrong, and the
 * answer is a DNS failure (briefly cached), never a fact about the domain. A published
 * null MX is a statement, not an absence, and stays what it is.
 */
function distrustVanishedProvider(
  routing: MailRouting,
  domain: string,
  categories: Signals["categories"],
): MailRouting {
  if (routing.status !== "nxdomain" && routing.status !== "no_mail" && routing.status !== "mx_missing") {
    return routing;
  }
  const provider = CATEGORIES.some((c) => c.mailbox && categories[c.key]?.entry === domain);
  return provider ? { ...routing, status: "dns_failure" } : routing;
}

export function gatherSignals(
  sources: SignalSources,
  { domain, baseDomain, isPublicSuffix }: CheckedDomain,
  answered: MailRouting,
  createdAt: Date | null,
): Signals {
  const { lists } = sources;
  const learned = sources.learned ?? NOTHING_LEARNED;
  const { knownGood, disposable: listed, categories } = lists.domainFacts(domain, baseDomain);
  const trusted = distrustVanishedProvider(answered, domain, categories);
  // Addresses that are not public are judged here, then never shown nor learnt.
  const routing = withPublicAddresses(trusted, sources);
  const mx = seenHosts(lists, mailHostNames(routing));
  let mxProvider: MxProvider | undefined;
  // Whether the domain's own base domain is its mail host: under it, or the fallback to itself.
  let ownsMailHost = routing.status === "fallback";
  for (const { facts } of mx) {
    mxProvider ??= facts.mxProvider;
    if (facts.baseDomain === baseDomain) ownsMailHost = true;
  }
  const operator = learned.domainOverride(domain, baseDomain);
  const account = operator === undefined ? sources.account?.entryFor(domain, baseDomain) : undefined;
  const override = overrideOf({ operator, account });
  const reserved = neverReceivesMail(domain);
  // Known-good domains, public suffixes, reserved names and domains the operator (or the
  // asking account) allowed are never disposable, parked or typos (docs/api.md "Verdicts").
  const exempt = knownGood || isPublicSuffix || reserved || override === "allow";
  const disposable = exempt ? undefined : listed;
  const ns = seenHosts(lists, routing.nameServers ?? []);
  const status: ListedStatus = disposable
    ? "disposable"
    : knownGood || override === "allow" || inAnyCategory(categories)
      ? "good"
      : "unknown";
  const parking = exempt ? undefined : parkingService(lists, mx, ns, routing.addresses, baseDomain);
  const evidence = isPublicSuffix
    ? undefined
    : evidenceOf(routing, mx, ns, baseDomain, status, disposable?.entry ?? null);
  return {
    domain,
    baseDomain,
    routing,
    mxPrivate: mailHostsArePrivate(trusted, sources),
    reserved,
    knownGood,
    disposable,
    disposableHints: exempt || disposable ? [] : disposableHints(mx, ns, baseDomain, evidence, learned),
    categories,
    mxProvider,
    // A parked domain's mail host is the parking service's, whatever its name: not self-hosted.
    selfHosted: ownsMailHost && mxProvider === undefined && parking === undefined,
    parking: parking?.service,
    parkedOn: parking && { kind: parking.kind, value: parking.value },
    mxUnresolvable: trusted.status === "mx" && trusted.hosts.every((h) => h.ips.length === 0),
    // A listed typo domain (gmial.com) still gets its suggestion: docs/api.md "The record"'s own example;
    // a listed domain two slips from a popular one is a service of its own (src/core/typo.ts).
    typos: exempt || inAnyCategory(categories) ? [] : sources.typos.suggest(baseDomain, listed !== undefined),
    createdAt,
    operator,
    ...(account && { account }),
    evidence,
  };
}
