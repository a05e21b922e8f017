/**
 * Reads the bundled lists once per instance: `data/` (curated lists, generated
 * disposable and forwarder lists) and the role-based-email-addresses package, into the
 * engine's `DomainListData`; src/core/domain-list-lookups.ts answers the look-ups.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type PerCategory, PROVIDER_CATEGORIES, type ProviderCategory } from "../core/categories.js";
import { BundledDomainLists } from "../core/domain-list-lookups.js";
import type { CategoryEntry, DomainListData, DomainLists } from "../core/list-interfaces.js";
import { packagePath } from "../package-root.js";
import { CATEGORY_FILES, type CuratedLists, curatedSource, readCuratedLists } from "./curated.js";
import { GENERATED_FILES, type GeneratedList, type ListedSources, parseGeneratedFile } from "./generated.js";

/** The package's `data/` directory. */
export const DATA_DIR = packagePath("data");

/** Everything the lists are made from, already read. */
export interface ListData {
  curated: CuratedLists;
  disposable: GeneratedList;
  /** Curated forwarders plus the package entries the build moved there. */
  forwarders: GeneratedList;
  roleLocalParts: readonly string[];
}

function categoryEntries(data: ListData, category: ProviderCategory): CategoryEntry[] {
  if (category === "forwarder") {
    const { sources, names } = data.forwarders;
    return [...sources].map(([entry, from]) => ({ entry, name: names.get(entry) ?? null, sources: from }));
  }
  const from = Object.freeze([curatedSource(CATEGORY_FILES[category])]);
  return data.curated.categories[category].map((e) => ({ entry: e.entry, name: e.name, sources: from }));
}

/** The bundled lists in the engine's shape, the disposable one as the table a merge reads. */
export type BundledListData = DomainListData & { disposable: ListedSources };

/** The engine's shape of the files' contents. */
export function domainListData(data: ListData): BundledListData {
  const { curated } = data;
  return {
    categories: Object.fromEntries(
      PROVIDER_CATEGORIES.map((c) => [c, categoryEntries(data, c)]),
    ) as PerCategory<CategoryEntry[]>,
    knownGood: [...curated.knownGood, ...curated.institutions.map((e) => e.entry)],
    knownGoodSuffixes: curated.knownGoodSuffixes,
    disposable: data.disposable.sources,
    popular: curated.popular,
    mxProviders: curated.mxProviders,
    parkingHosts: curated.parkingHosts,
    parkingAddresses: curated.parkingAddresses,
    disposableInfrastructure: curated.disposableInfrastructure,
    roleLocalParts: data.roleLocalParts,
  };
}

/** Lists from data already in memory (tests build them from small fixtures). */
export function createDomainLists(data: ListData): DomainLists {
  return new BundledDomainLists(domainListData(data));
}

/** The role-based local parts of the `role-based-email-addresses` package. */
export function readRoleLocalParts(): string[] {
  const require = createRequire(import.meta.url);
  const list: unknown = require("role-based-email-addresses");
  if (!Array.isArray(list) || !list.every((v) => typeof v === "string")) {
    throw new Error("role-based-email-addresses no longer exports a list of strings");
  }
  return list;
}

function readGenerated(dataDir: string, file: string): GeneratedList {
  const path = join(dataDir, file);
  let bytes: Uint8Array;
  try {
    // The bytes as they are: the parser reads them without decoding the whole file.
    bytes = readFileSync(path);
  } catch (error) {
    throw new Error(`cannot read ${path} (run \`npm run data:build\`): ${(error as Error).message}`);
  }
  return parseGeneratedFile(bytes, `data/${file}`);
}

/** Reads every bundled list once; call once per instance and share the result. */
export function readListData(dataDir: string = DATA_DIR): ListData {
  return {
    curated: readCuratedLists(dataDir),
    disposable: readGenerated(dataDir, GENERATED_FILES.disposable),
    forwarders: readGenerated(dataDir, GENERATED_FILES.forwarders),
    roleLocalParts: readRoleLocalParts(),
  };
}

/** The bundled disposable list alone, entry → its sources (a sync's baseline, src/service/lists/list-sync.ts). */
export function readBundledDisposable(dataDir: string = DATA_DIR): ListedSources {
  return readGenerated(dataDir, GENERATED_FILES.disposable).sources;
}

/** The bundled lists as the engine sees them. */
export function loadDomainLists(dataDir: string = DATA_DIR): DomainLists {
  return createDomainLists(readListData(dataDir));
}
