/**
 * The bundled lists behind the engine's `DomainLists`: read once per instance from
 * `data/` (curated lists, generated disposable and forwarder lists) and from the
 * role-based-email-addresses package, then answered from Sets and Maps only.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DomainLists, DomainMatch, MxProvider, ProviderCategory } from "../core/lists.js";
import {
  CATEGORY_FILES,
  type CuratedLists,
  curatedSource,
  PROVIDER_CATEGORIES,
  readCuratedLists,
} from "./curated.js";
import { GENERATED_FILES, type GeneratedList, parseGeneratedFile } from "./generated.js";
import { findSelfOrParent, isPublicSuffix } from "./names.js";

/** The package's `data/` directory; the same from `src/data/` (tsx) and `dist/data/` (built). */
export const DATA_DIR = fileURLToPath(new URL("../../data/", import.meta.url));

/** Everything the lists are made from, already read. */
export interface ListData {
  curated: CuratedLists;
  disposable: GeneratedList;
  /** Curated forwarders plus the package entries the build moved there. */
  forwarders: GeneratedList;
  roleLocalParts: readonly string[];
}

function frozenMatch(entry: string, name: string | null, sources: readonly string[]): DomainMatch {
  return Object.freeze({ entry, name, sources: sources as string[] });
}

function categoryTable(data: ListData, category: ProviderCategory): Map<string, DomainMatch> {
  if (category === "forwarder") {
    const { sources, names } = data.forwarders;
    return new Map(
      [...sources].map(([entry, from]) => [entry, frozenMatch(entry, names.get(entry) ?? null, from)]),
    );
  }
  const from = Object.freeze([curatedSource(CATEGORY_FILES[category])]);
  return new Map(data.curated.categories[category].map((e) => [e.entry, frozenMatch(e.entry, e.name, from)]));
}

/** A host as DNS may give it (upper case, trailing dot) in the lists' form. */
function hostName(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

class BundledDomainLists implements DomainLists {
  readonly popular: readonly string[];
  private readonly disposableSources: ReadonlyMap<string, readonly string[]>;
  private readonly categories: ReadonlyMap<ProviderCategory, ReadonlyMap<string, DomainMatch>>;
  /** Known-good domains and academic/government suffixes; a listed parent covers a name. */
  private readonly knownGood: ReadonlySet<string>;
  private readonly mxProviders: ReadonlyMap<string, MxProvider>;
  private readonly parkingHosts: ReadonlyMap<string, string>;
  private readonly parkingAddresses: ReadonlyMap<string, string>;
  private readonly infrastructure: ReadonlyMap<string, string>;
  private readonly roles: ReadonlySet<string>;

  constructor(data: ListData) {
    const { curated } = data;
    this.popular = Object.freeze([...curated.popular]);
    this.disposableSources = data.disposable.sources;
    this.categories = new Map(PROVIDER_CATEGORIES.map((c) => [c, categoryTable(data, c)]));
    this.knownGood = new Set([...curated.knownGood, ...curated.knownGoodSuffixes]);
    this.mxProviders = new Map(curated.mxProviders.map((p) => [p.suffix, Object.freeze({ ...p.provider })]));
    this.parkingHosts = new Map(curated.parkingHosts.map((e) => [e.entry, e.name]));
    this.parkingAddresses = new Map(curated.parkingAddresses.map((e) => [e.entry.toLowerCase(), e.name]));
    this.infrastructure = new Map(curated.disposableInfrastructure.map((e) => [e.entry, e.name]));
    this.roles = new Set(data.roleLocalParts.map((r) => r.toLowerCase()));
  }

  disposable(domain: string, baseDomain: string): DomainMatch | undefined {
    const entry = findSelfOrParent(this.disposableSources, domain, baseDomain);
    if (entry === undefined) return undefined;
    // The build already removed these; this keeps the promise for any list it is given.
    if (isPublicSuffix(entry) || this.isKnownGood(domain, baseDomain)) return undefined;
    return { entry, name: null, sources: this.disposableSources.get(entry) as string[] };
  }

  category(category: ProviderCategory, domain: string, baseDomain: string): DomainMatch | undefined {
    const table = this.categories.get(category);
    if (table === undefined) return undefined;
    const entry = findSelfOrParent(table, domain, baseDomain);
    return entry === undefined ? undefined : table.get(entry);
  }

  isKnownGood(domain: string, _baseDomain: string): boolean {
    // Walks past the base domain on purpose: `ox.ac.uk` is known-good through `ac.uk`.
    return findSelfOrParent(this.knownGood, domain) !== undefined;
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

/** Lists from data already in memory (tests build them from small fixtures). */
export function createDomainLists(data: ListData): DomainLists {
  return new BundledDomainLists(data);
}

/** The role-based local parts of the `role-based-email-addresses` package. */
export function readRoleLocalParts(): string[] {
  const list: unknown = createRequire(import.meta.url)("role-based-email-addresses");
  if (!Array.isArray(list) || !list.every((v) => typeof v === "string")) {
    throw new Error("role-based-email-addresses no longer exports a list of strings");
  }
  return list;
}

function readGenerated(dataDir: string, file: string): GeneratedList {
  const path = join(dataDir, file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${path} (run \`npm run data:build\`): ${(error as Error).message}`);
  }
  return parseGeneratedFile(text, `data/${file}`);
}

/** Reads every list once; call once per instance and share the result. */
export function loadDomainLists(dataDir: string = DATA_DIR): DomainLists {
  return createDomainLists({
    curated: readCuratedLists(dataDir),
    disposable: readGenerated(dataDir, GENERATED_FILES.disposable),
    forwarders: readGenerated(dataDir, GENERATED_FILES.forwarders),
    roleLocalParts: readRoleLocalParts(),
  });
}
