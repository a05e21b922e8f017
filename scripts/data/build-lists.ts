/**
 * The pure part of scripts/build-data.ts: from the disposable-domain packages and the
 * curated lists to the text of the generated files. Same input, same bytes out: entries
 * are sorted, and the only versions in the output are those of the inputs.
 */
import { getPublicSuffix } from "tldts";
import { findSelfOrParent, normaliseDomain } from "../../src/core/names.js";
import { CATEGORY_FILES, type CuratedLists, curatedSource } from "../../src/data/curated.js";
import {
  byCodeUnits,
  type DisposablePackage,
  formatGeneratedFile,
  GENERATED_FILES,
  type GeneratedEntry,
} from "../../src/data/generated.js";
import { type ListGate, listGate } from "../../src/data/list-gate.js";

export interface SourcePackage {
  name: DisposablePackage;
  version: string;
  /** The package's entries as it ships them (not yet normalised). */
  entries: Iterable<string>;
}

export interface BuildInput {
  packages: readonly SourcePackage[];
  curated: CuratedLists;
  /** Decides what a public suffix is, so it is an input of the output too. */
  tldtsVersion: string;
}

export interface BuildReport {
  /** Distinct names after normalising, across all packages. */
  merged: number;
  /** Raw entries that are no valid domain name (distinct). */
  invalid: string[];
  publicSuffix: string[];
  /** Names reserved by RFC 2606/6761 (`example.com`, `*.test`): no service can run on one. */
  reserved: string[];
  /** Known-good domains, names under an academic/government suffix, curated providers. */
  knownGood: string[];
  movedToForwarders: string[];
  disposable: number;
  forwarders: number;
}

export interface BuildResult {
  /** Path relative to `data/` → file content. */
  files: Record<string, string>;
  report: BuildReport;
  /** Inconsistencies of the curated lists; the build must not write anything then. */
  problems: string[];
}

/** Normalised name → the packages that list it (the name itself, not a parent). */
function mergePackages(packages: readonly SourcePackage[]): {
  merged: Map<string, Set<string>>;
  invalid: string[];
} {
  const merged = new Map<string, Set<string>>();
  const invalid = new Set<string>();
  for (const pkg of packages) {
    for (const raw of pkg.entries) {
      if (raw.trim() === "") continue;
      const domain = normaliseDomain(raw);
      if (domain === undefined) {
        invalid.add(raw);
        continue;
      }
      const sources = merged.get(domain) ?? new Set<string>();
      sources.add(pkg.name);
      merged.set(domain, sources);
    }
  }
  return { merged, invalid: [...invalid].sort(byCodeUnits) };
}

/** The first labels of academic and government suffixes (`edu.pl`, `ac.uk`, `gov.br`, …). */
const INSTITUTIONAL_LABELS = ["ac", "edu", "gov", "gob", "gouv", "govt", "mil"];
/** Suffixes of that form that are no institution's: `ac.se` is a Swedish county code. */
const NOT_INSTITUTIONAL = new Set(["ac.se"]);

const isIcannSuffix = (name: string) => getPublicSuffix(`x.${name}`, { allowPrivateDomains: false }) === name;

/**
 * Every academic or government suffix of the Public Suffix List (`edu`, `gov`, `mil`, and
 * `ac.*`, `edu.*`, `gov.*`, … under a country code listed name by name, not by wildcard).
 */
function institutionalSuffixesOfThePsl(): string[] {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const countries = [...letters].flatMap((a) => [...letters].map((b) => a + b));
  const explicit = countries.filter((cc) => isIcannSuffix(cc) && !isIcannSuffix(`nosuchname.${cc}`));
  const underCountries = explicit.flatMap((cc) => INSTITUTIONAL_LABELS.map((label) => `${label}.${cc}`));
  return ["edu", "gov", "mil", ...underCountries].filter(
    (s) => isIcannSuffix(s) && !NOT_INSTITUTIONAL.has(s),
  );
}

/** The academic and government suffixes of the Public Suffix List that known-good-suffixes.txt lacks. */
export function missingInstitutionalSuffixes(curated: CuratedLists): string[] {
  const held = new Set([...curated.knownGoodSuffixes, ...curated.openSuffixes]);
  return institutionalSuffixesOfThePsl()
    .filter((suffix) => !held.has(suffix))
    .map((suffix) => `known-good-suffixes.txt: "${suffix}", an academic or government suffix, is missing`);
}

function curatedProblems(curated: CuratedLists, gate: ListGate, disposable: Set<string>): string[] {
  const problems: string[] = [];
  for (const suffix of [...curated.knownGoodSuffixes, ...curated.openSuffixes]) {
    if (!isIcannSuffix(suffix)) {
      problems.push(`known-good-suffixes.txt: "${suffix}" is not a public suffix (ICANN section)`);
    }
  }
  const open = new Set(curated.openSuffixes);
  for (const { entry } of curated.institutions) {
    if (findSelfOrParent(open, entry.slice(entry.indexOf(".") + 1)) === undefined) {
      problems.push(
        `institutions.txt: "${entry}" is under no open suffix (an institution elsewhere goes in known-good.txt)`,
      );
    }
  }
  for (const domain of curated.popular) {
    if (gate(domain) !== "known_good") {
      problems.push(`popular.txt: "${domain}" is in neither known-good.txt nor a provider list`);
    }
  }
  for (const { entry, name } of curated.disposableInfrastructure) {
    for (const domain of new Set([entry, name])) {
      if (findSelfOrParent(disposable, domain) === undefined) {
        problems.push(`disposable-infrastructure.txt: "${domain}" is on no disposable source list`);
      }
    }
  }
  return problems;
}

export function buildLists(input: BuildInput): BuildResult {
  const { curated } = input;
  const { merged, invalid } = mergePackages(input.packages);
  const gate = listGate(curated);
  const forwarderNames = new Map(curated.categories.forwarder.map((e) => [e.entry, e.name]));
  const curatedForwarders = curatedSource(CATEGORY_FILES.forwarder);

  const report: BuildReport = {
    merged: merged.size,
    invalid,
    publicSuffix: [],
    reserved: [],
    knownGood: [],
    movedToForwarders: [],
    disposable: 0,
    forwarders: 0,
  };
  const disposable: GeneratedEntry[] = [];
  const forwarders = new Map<string, GeneratedEntry>(
    curated.categories.forwarder.map((e) => [
      e.entry,
      { domain: e.entry, sources: [curatedForwarders], name: e.name },
    ]),
  );
  for (const domain of [...merged.keys()].sort(byCodeUnits)) {
    const sources = [...(merged.get(domain) as Set<string>)];
    const refusal = gate(domain);
    if (refusal === "public_suffix") {
      report.publicSuffix.push(domain);
    } else if (refusal === "reserved") {
      report.reserved.push(domain);
    } else if (refusal === "forwarder") {
      report.movedToForwarders.push(domain);
      const own = forwarders.get(domain)?.sources ?? [];
      forwarders.set(domain, {
        domain,
        sources: [...own, ...sources],
        name: forwarderNames.get(findSelfOrParent(forwarderNames, domain) as string) as string,
      });
    } else if (refusal === "known_good") {
      report.knownGood.push(domain);
    } else {
      disposable.push({ domain, sources });
    }
  }
  report.disposable = disposable.length;
  report.forwarders = forwarders.size;

  const inputs = [
    ...[...input.packages].sort((a, b) => byCodeUnits(a.name, b.name)).map((p) => `${p.name}@${p.version}`),
    `tldts@${input.tldtsVersion}`,
    "data/curated/",
  ];
  return {
    files: {
      [GENERATED_FILES.disposable]: formatGeneratedFile(
        inputs,
        "Disposable (temporary) email domains, merged from the packages above.",
        disposable,
      ),
      [GENERATED_FILES.forwarders]: formatGeneratedFile(
        inputs,
        "Forwarding (relay) services: data/curated/forwarders.txt plus the package entries moved here.",
        [...forwarders.values()],
      ),
    },
    report,
    problems: curatedProblems(curated, gate, new Set(disposable.map((e) => e.domain))),
  };
}
