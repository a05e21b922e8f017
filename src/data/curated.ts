/**
 * The hand-written lists in `data/curated/`: reading, checking and typing them. Every
 * entry must already be in normal form (lower-case ASCII), so what a reader sees in the
 * file is exactly what is matched.
 */
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { type PerCategory, PROVIDER_CATEGORIES, type ProviderCategory } from "../core/categories.js";
import type { MxPattern, NamedEntry } from "../core/list-interfaces.js";
import { normaliseDomain } from "../core/names.js";
import { ListFileError, type ListLine, parseListLines } from "./list-file.js";

export const CURATED_DIR = "curated";

/** The curated file of each provider category (src/core/categories.ts defines the categories). */
export const CATEGORY_FILES: Readonly<PerCategory<string>> = {
  free: "free.txt",
  premium: "premium.txt",
  business: "business.txt",
  isp: "isp.txt",
  email_api: "email-api.txt",
  web_hosting: "web-hosting.txt",
  forwarder: "forwarders.txt",
};

export const CURATED_FILES = {
  knownGood: "known-good.txt",
  knownGoodSuffixes: "known-good-suffixes.txt",
  institutions: "institutions.txt",
  popular: "popular.txt",
  mxProviders: "mx-providers.txt",
  parkingHosts: "parking-hosts.txt",
  parkingAddresses: "parking-ips.txt",
  disposableInfrastructure: "disposable-infrastructure.txt",
} as const;

export interface CuratedLists {
  categories: PerCategory<NamedEntry[]>;
  knownGood: string[];
  /**
   * Academic, government and military public suffixes whose registry admits only
   * institutions (`edu`, `gov`, `ac.uk`): everything under them is known-good.
   */
  knownGoodSuffixes: string[];
  /**
   * Academic and government suffixes open to anyone (`edu.pl`, `mil.pl`: kind `open` in
   * known-good-suffixes.txt): only the institutions named under them are known-good.
   */
  openSuffixes: string[];
  /** The named institutions under the open suffixes (institutions.txt). */
  institutions: NamedEntry[];
  popular: string[];
  mxProviders: MxPattern[];
  parkingHosts: NamedEntry[];
  parkingAddresses: NamedEntry[];
  /** Host suffix → the disposable service's own domain. */
  disposableInfrastructure: NamedEntry[];
}

/** How a curated entry names its source in a `DomainMatch`. */
export function curatedSource(file: string): string {
  return `data/${CURATED_DIR}/${file}`;
}

type FieldCheck = (value: string) => string | undefined;

const domain: FieldCheck = (value) =>
  normaliseDomain(value) === value ? undefined : "is not a domain in normal form (lower-case ASCII)";

/** A public suffix may be a single label (`edu`), so it is checked as the parent of a name. */
const suffix: FieldCheck = (value) =>
  normaliseDomain(`x.${value}`) === `x.${value}` ? undefined : "is not a suffix in normal form";

const address: FieldCheck = (value) => (isIP(value) === 0 ? "is not an IP address" : undefined);

const category: FieldCheck = (value) =>
  value === "-" || (PROVIDER_CATEGORIES as readonly string[]).includes(value)
    ? undefined
    : `is not a category (${PROVIDER_CATEGORIES.join(", ")} or -)`;

const name: FieldCheck = () => undefined;

/**
 * Parses one curated file whose lines hold the given fields; fields beyond `required`
 * are optional. Entries (the first field) must be unique within the file.
 */
function parseFile(file: string, text: string, checks: FieldCheck[], required = checks.length): string[][] {
  const label = curatedSource(file);
  const seen = new Set<string>();
  return parseListLines(text).map(({ fields, line }: ListLine) => {
    if (fields.length < required || fields.length > checks.length) {
      const count = required === checks.length ? `${required}` : `${required} to ${checks.length}`;
      throw new ListFileError(
        label,
        line,
        `expected ${count} fields, found ${fields.length}: ${fields.join(" | ")}`,
      );
    }
    fields.forEach((value, i) => {
      const problem = checks[i]?.(value);
      if (problem) throw new ListFileError(label, line, `"${value}" ${problem}`);
    });
    const entry = fields[0] as string;
    if (seen.has(entry)) throw new ListFileError(label, line, `"${entry}" is listed twice`);
    seen.add(entry);
    return fields;
  });
}

function named(rows: string[][]): NamedEntry[] {
  return rows.map(([entry, entryName]) => ({ entry: entry as string, name: entryName as string }));
}

/** The kind of a suffix anyone may register under (known-good-suffixes.txt). */
export const OPEN_SUFFIX_KIND = "open";

function suffixesByKind(rows: string[][]): Pick<CuratedLists, "knownGoodSuffixes" | "openSuffixes"> {
  const isOpen = (row: string[]) => row[1] === OPEN_SUFFIX_KIND;
  return {
    knownGoodSuffixes: rows.filter((row) => !isOpen(row)).map(([entry]) => entry as string),
    openSuffixes: rows.filter(isOpen).map(([entry]) => entry as string),
  };
}

/** Parses all curated lists from their texts; `read` gets a file name inside `data/curated/`. */
export function parseCuratedLists(read: (file: string) => string): CuratedLists {
  const file = (key: keyof typeof CURATED_FILES, checks: FieldCheck[], required?: number) =>
    parseFile(CURATED_FILES[key], read(CURATED_FILES[key]), checks, required);
  const categories = Object.fromEntries(
    PROVIDER_CATEGORIES.map((c) => [
      c,
      named(parseFile(CATEGORY_FILES[c], read(CATEGORY_FILES[c]), [domain, name])),
    ]),
  ) as PerCategory<NamedEntry[]>;
  return {
    categories,
    knownGood: file("knownGood", [domain, name], 1).map(([entry]) => entry as string),
    ...suffixesByKind(file("knownGoodSuffixes", [suffix, name], 1)),
    institutions: named(file("institutions", [domain, name])),
    popular: file("popular", [domain]).map(([entry]) => entry as string),
    mxProviders: file("mxProviders", [domain, category, name]).map(([entry, kind, providerName]) => ({
      suffix: entry as string,
      provider: { name: providerName as string, category: kind === "-" ? null : (kind as ProviderCategory) },
    })),
    parkingHosts: named(file("parkingHosts", [domain, name])),
    parkingAddresses: named(file("parkingAddresses", [address, name])),
    disposableInfrastructure: named(file("disposableInfrastructure", [domain, domain])),
  };
}

/** Reads and checks every curated list under `<dataDir>/curated/`. */
export function readCuratedLists(dataDir: string): CuratedLists {
  return parseCuratedLists((file) => readFileSync(join(dataDir, CURATED_DIR, file), "utf8"));
}
