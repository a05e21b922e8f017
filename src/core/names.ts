/**
 * Domain-name helpers the lists share: normalising an entry, telling a public suffix,
 * and the parent walk every look-up uses.
 */
import { getDomain, parse } from "tldts";
import { parseDomainName } from "./input.js";

/** The entry as the engine sees domains (docs/api.md "Inputs": trimmed, lower-case, ASCII), or undefined when it is no valid domain. */
export function normaliseDomain(raw: string): string | undefined {
  const parsed = parseDomainName(raw);
  return parsed.ok ? parsed.input.domain : undefined;
}

/**
 * Names reach the Public Suffix List already normalised (parsed input, list entries,
 * host names from DNS answers): tldts need not pull a host out of a URL, nor check it.
 */
const HOSTNAME = { extractHostname: false, validateHostname: false, mixedInputs: false } as const;
const WITH_PRIVATE = { ...HOSTNAME, allowPrivateDomains: true } as const;
const ICANN_ONLY = { ...HOSTNAME, allowPrivateDomains: false } as const;

/**
 * True for a public suffix (ICANN or private section: `co.uk`, `github.io`) and for a
 * name that has no registrable part at all: such a name is never one service's domain.
 */
export function isPublicSuffix(name: string): boolean {
  const parsed = parse(name, WITH_PRIVATE);
  return parsed.domain === null || parsed.publicSuffix === name;
}

/**
 * The registrable domain of a name by the Public Suffix List's ICANN section (`a.b.co.uk`
 * → `b.co.uk`): the base domain of a check, and of its MX and NS hosts. A name without
 * one (a suffix itself) is its own base.
 */
export function baseDomainOf(name: string): string {
  return getDomain(name, ICANN_ONLY) ?? name;
}

/** What the Public Suffix List says of a checked domain. */
export interface SuffixFacts {
  /** The registrable domain by the ICANN section (see `baseDomainOf`). */
  baseDomain: string;
  /** Whether the name is a public suffix (see `isPublicSuffix`). */
  isPublicSuffix: boolean;
}

/**
 * `baseDomainOf` and `isPublicSuffix` of a name at once: one look-up in the list, and a
 * second only for a name under a private-section suffix (`github.io`), whose registrable
 * domain by the ICANN section differs.
 */
export function suffixFacts(name: string): SuffixFacts {
  const parsed = parse(name, WITH_PRIVATE);
  return {
    baseDomain: parsed.isPrivate ? baseDomainOf(name) : (parsed.domain ?? name),
    isPublicSuffix: parsed.domain === null || parsed.publicSuffix === name,
  };
}

/** Anything that can say whether it holds a name: a Set or a Map. */
export interface NameTable {
  has(name: string): boolean;
}

/**
 * The name itself or its nearest parent that `table` holds, most specific first.
 * With `last` (the base domain) the walk ends there, so `a.b.mailinator.com` with base
 * `mailinator.com` tries `a.b.mailinator.com`, `b.mailinator.com`, `mailinator.com`;
 * without it the walk goes on to the top-level domain.
 */
export function findSelfOrParent(table: NameTable, name: string, last?: string): string | undefined {
  let candidate = name;
  for (;;) {
    if (table.has(candidate)) return candidate;
    if (last !== undefined && candidate.length <= last.length) return undefined;
    const dot = candidate.indexOf(".");
    if (dot < 0) return undefined;
    candidate = candidate.slice(dot + 1);
  }
}
