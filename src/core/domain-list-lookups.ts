/**
 * The engine's `DomainLists`, answered from Sets and Maps only: built once per instance
 * from the lists as src/data/ read them (`DomainListData`), never per check.
 */
import { NO_CATEGORIES, type PerCategory, PROVIDER_CATEGORIES } from "./categories.js";
import type {
  DisposableEntries,
  DomainFacts,
  DomainListData,
  DomainLists,
  DomainMatch,
  HostFacts,
  MxProvider,
} from "./list-interfaces.js";
import { baseDomainOf, findSelfOrParent, isPublicSuffix } from "./names.js";

function frozenMatch(entry: string, name: string | null, sources: readonly string[]): DomainMatch {
  return Object.freeze({ entry, name, sources: sources as string[] });
}

/** What the curated domain lists hold for one exact name. */
interface NameEntry {
  knownGood: boolean;
  categories: Partial<PerCategory<DomainMatch>> | undefined;
}

/** The facts of most domains: no list holds them. */
const NOTHING_LISTED: DomainFacts = Object.freeze({
  knownGood: false,
  disposable: undefined,
  categories: NO_CATEGORIES,
});

/** Hosts whose facts are remembered; past it the memory starts afresh (MX and NS hosts repeat, most domains' do not). */
const HOST_MEMORY = 20_000;

/** A host as DNS may give it (upper case, trailing dot) in the lists' form. */
function hostName(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

export class BundledDomainLists implements DomainLists {
  readonly popular: readonly string[];
  readonly lookAlikeTargets: readonly string[];
  private readonly mxProviders: ReadonlyMap<string, MxProvider>;
  private readonly parkingHosts: ReadonlyMap<string, string>;
  private readonly parkingAddresses: ReadonlyMap<string, string>;
  private readonly infrastructure: ReadonlyMap<string, string>;
  private readonly roles: ReadonlySet<string>;
  /** The disposable list: entry → its sources (over 100,000 names, kept as given). */
  private readonly disposableSources: DisposableEntries;
  /**
   * Every name the curated domain lists hold (provider categories, known-good domains and
   * academic/government suffixes) with what each says of it: one map hit per walk step
   * instead of one per list.
   */
  private readonly names = new Map<string, NameEntry>();
  private readonly hosts = new Map<string, HostFacts>();

  constructor(data: DomainListData) {
    this.popular = Object.freeze([...data.popular]);
    this.lookAlikeTargets = Object.freeze([...new Set([...data.popular, ...data.knownGood])]);
    this.disposableSources = data.disposable;
    this.mxProviders = new Map(data.mxProviders.map((p) => [p.suffix, Object.freeze({ ...p.provider })]));
    this.parkingHosts = new Map(data.parkingHosts.map((e) => [e.entry, e.name]));
    this.parkingAddresses = new Map(data.parkingAddresses.map((e) => [e.entry.toLowerCase(), e.name]));
    this.infrastructure = new Map(data.disposableInfrastructure.map((e) => [e.entry, e.name]));
    this.roles = new Set(data.roleLocalParts.map((r) => r.toLowerCase()));
    for (const name of [...data.knownGood, ...data.knownGoodSuffixes]) this.entry(name).knownGood = true;
    for (const category of PROVIDER_CATEGORIES) {
      for (const { entry: name, name: provider, sources } of data.categories[category]) {
        const entry = this.entry(name);
        entry.categories = { ...entry.categories, [category]: frozenMatch(name, provider, sources) };
      }
    }
  }

  private entry(name: string): NameEntry {
    let entry = this.names.get(name);
    if (entry === undefined) {
      entry = { knownGood: false, categories: undefined };
      this.names.set(name, entry);
    }
    return entry;
  }

  /**
   * One walk from the domain up through its parents: list entries count up to the base
   * domain, known-good ones on up to the top-level domain (`ox.ac.uk` is known-good
   * through `ac.uk`). For each list the most specific entry wins.
   */
  domainFacts(domain: string, baseDomain: string): DomainFacts {
    let knownGood = false;
    let disposable: { entry: string; sources: readonly string[] } | undefined;
    let categories: Partial<PerCategory<DomainMatch>> | undefined;
    let withinBase = true;
    for (let name = domain; ; ) {
      const entry = this.names.get(name);
      if (entry !== undefined) {
        knownGood ||= entry.knownGood;
        if (withinBase && entry.categories) categories = { ...entry.categories, ...categories };
      }
      if (withinBase && disposable === undefined) {
        const sources = this.disposableSources.get(name);
        if (sources !== undefined) disposable = { entry: name, sources };
      }
      if (name.length <= baseDomain.length) withinBase = false;
      if (knownGood && !withinBase) break;
      const dot = name.indexOf(".");
      if (dot < 0) break;
      name = name.slice(dot + 1);
    }
    if (!knownGood && disposable === undefined && categories === undefined) return NOTHING_LISTED;
    return {
      knownGood,
      // The build already removed these; this keeps the promise for any list it is given.
      disposable:
        disposable === undefined || knownGood || isPublicSuffix(disposable.entry)
          ? undefined
          : { entry: disposable.entry, name: null, sources: disposable.sources as string[] },
      categories: categories === undefined ? NO_CATEGORIES : { ...NO_CATEGORIES, ...categories },
    };
  }

  hostFacts(host: string): HostFacts {
    let facts = this.hosts.get(host);
    if (facts === undefined) {
      const name = hostName(host);
      const baseDomain = baseDomainOf(name);
      const owner = this.domainFacts(baseDomain, baseDomain);
      facts = Object.freeze({
        baseDomain,
        mxProvider: this.mxProvider(name),
        parkingService: this.parkingHost(name),
        disposableService: this.disposableInfrastructure(name) ?? this.disposable(name, baseDomain)?.entry,
        vouchedFor: owner.knownGood || owner.categories !== NO_CATEGORIES,
      });
      if (this.hosts.size >= HOST_MEMORY) this.hosts.clear();
      this.hosts.set(host, facts);
    }
    return facts;
  }

  disposable(domain: string, baseDomain: string): DomainMatch | undefined {
    return this.domainFacts(domain, baseDomain).disposable;
  }

  listedSince(entry: string, source: string): Date | null {
    const at = this.disposableSources.listedSince?.(entry, source);
    return at === undefined ? null : new Date(at);
  }

  mxProvider(mxHost: string): MxProvider | undefined {
    const entry = findSelfOrParent(this.mxProviders, hostName(mxHost));
    return entry === undefined ? undefined : this.mxProviders.get(entry);
  }

  parkingHost(host: string): string | undefined {
    const entry = findSelfOrParent(this.parkingHosts, hostName(host));
    return entry === undefined ? undefined : this.parkingHosts.get(entry);
  }

  parkingAddress(ip: string): string | undefined {
    return this.parkingAddresses.get(ip.toLowerCase());
  }

  disposableInfrastructure(host: string): string | undefined {
    const entry = findSelfOrParent(this.infrastructure, hostName(host));
    return entry === undefined ? undefined : this.infrastructure.get(entry);
  }

  isRoleLocalPart(localPart: string): boolean {
    const plus = localPart.indexOf("+");
    return this.roles.has((plus < 0 ? localPart : localPart.slice(0, plus)).toLowerCase());
  }
}
