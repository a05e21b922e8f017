/**
 * The bundled lists as the engine sees them. Read once per instance from `data/`
 * (src/data/ reads the files into `DomainListData`; src/core/domain-list-lookups.ts answers
 * from it), never per check. Every domain look-up walks the domain and its parents up
 * to (and including) the base domain.
 */
import type { PerCategory, ProviderCategory } from "./categories.js";

export interface DomainMatch {
  /** The list entry that matched (the domain itself or a parent). */
  entry: string;
  /** Human name of the provider or service, when the list carries one. */
  name: string | null;
  /** Where the entry comes from (package names or curated source). */
  sources: string[];
}

export interface MxProvider {
  name: string;
  category: ProviderCategory | null;
}

/** What the lists say of a checked domain, from one walk over it and its parents. */
export interface DomainFacts {
  /** A big provider or other known-legitimate domain (never disposable, never a typo), itself or through a parent, also above the base domain (`ox.ac.uk` through `ac.uk`). */
  knownGood: boolean;
  /** The disposable-list entry covering the domain; never for a known-good domain. */
  disposable: DomainMatch | undefined;
  /** The provider-category entries covering the domain, per category. */
  categories: Readonly<PerCategory<DomainMatch | undefined>>;
}

/** What the lists say of an MX or NS host, whoever's domain it serves. */
export interface HostFacts {
  /** The host's registrable domain (Public Suffix List, ICANN section). */
  baseDomain: string;
  mxProvider: MxProvider | undefined;
  /** The parking service whose name server or MX host this is. */
  parkingService: string | undefined;
  /** The disposable service the host belongs to: its infrastructure, or its domain is a listed disposable one. */
  disposableService: string | undefined;
  /** Whether the host's base domain is known-good or a listed provider's: never learnt as disposable. */
  vouchedFor: boolean;
}

export interface DomainLists {
  /** Every list verdict on a checked domain at once (the engine's look-up). */
  domainFacts(domain: string, baseDomain: string): DomainFacts;
  /** Every list verdict on a host at once; remembered per host, as the same hosts serve many domains. */
  hostFacts(host: string): HostFacts;
  /** The disposable-list entry covering the domain (`domainFacts(…).disposable`). */
  disposable(domain: string, baseDomain: string): DomainMatch | undefined;
  /** Mail provider whose MX host pattern matches the host (e.g. `*.google.com`). */
  mxProvider(mxHost: string): MxProvider | undefined;
  /** Parking service whose name server or MX host this is. */
  parkingHost(host: string): string | undefined;
  /** Parking service that owns this IP address. */
  parkingAddress(ip: string): string | undefined;
  /** Disposable service whose mail or name server infrastructure this host is part of. */
  disposableInfrastructure(host: string): string | undefined;
  /** Popular mailbox domains, for typo suggestions. */
  readonly popular: readonly string[];
  /** The names a look-alike is drawn like (`gmаil.com`, `аpple.com`): the popular mailbox domains and the known-good domains. */
  readonly lookAlikeTargets: readonly string[];
  isRoleLocalPart(localPart: string): boolean;
  /** When `source` first listed the disposable entry (a synced list's provenance); null when unknown (bundled lists). */
  listedSince(entry: string, source: string): Date | null;
}

/** Lists that change while the service runs (synced upstream sources, src/service/lists/lists-in-force.ts). */
export interface ChangingDomainLists extends DomainLists {
  /** Raised whenever the lists in force change. */
  readonly version: number;
  /** Whether the first load has finished (or failed), and the promise of it. */
  readonly loaded: boolean;
  readonly ready: Promise<void>;
  /** Loads the lists in force now (after a change); never rejects. */
  reloadAfterChange(): Promise<void>;
}

/** Whether the lists change while the service runs. */
export function isChanging(lists: DomainLists): lists is ChangingDomainLists {
  return "reloadAfterChange" in lists;
}

/** A list entry (domain, host suffix or address) with the name the list gives it. */
export interface NamedEntry {
  entry: string;
  name: string;
}

export interface MxPattern {
  /** Host suffix, matched on label boundaries. */
  suffix: string;
  provider: MxProvider;
}

/** A provider-category entry with where it comes from. */
export interface CategoryEntry {
  entry: string;
  name: string | null;
  sources: readonly string[];
}

/** The disposable list: the bundled one as read (a Map), or with synced sources merged in. */
export interface DisposableEntries {
  get(entry: string): readonly string[] | undefined;
  /** When a synced source first listed the entry (epoch ms); undefined for a bundled one. */
  listedSince?(entry: string, source: string): number | undefined;
}

/** Everything the lists hold, already read (src/data/ builds it from the files). */
export interface DomainListData {
  categories: Readonly<PerCategory<readonly CategoryEntry[]>>;
  knownGood: readonly string[];
  /** Academic, government and military public suffixes: everything under them is known-good. */
  knownGoodSuffixes: readonly string[];
  /** The disposable list: entry → its sources (over 100,000 names). */
  disposable: DisposableEntries;
  popular: readonly string[];
  mxProviders: readonly MxPattern[];
  parkingHosts: readonly NamedEntry[];
  parkingAddresses: readonly NamedEntry[];
  /** Host suffix → the disposable service's own domain. */
  disposableInfrastructure: readonly NamedEntry[];
  roleLocalParts: readonly string[];
}
