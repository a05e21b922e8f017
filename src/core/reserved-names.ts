/**
 * Names reserved for documentation, testing and special use (RFC 2606, RFC 6761). No
 * registry allocates them, so no mail service, throwaway or other, runs on one: a
 * disposable list that carries one is mistaken (the data build drops them).
 *
 * Two uses, as RFC 6761 §6 tells applications to treat them (docs/verdicts.md, status `reserved`):
 *
 * - `never`: names that can never receive real mail, decided from the name alone (the
 *   row holds while DNS is down). `example.com/.net/.org` are held by IANA for
 *   documentation and never assigned (RFC 2606 §3); `invalid` never resolves and
 *   `localhost` is the loopback host (RFC 6761 §6.4, §6.3: applications MAY treat
 *   them as special).
 * - `private`: `test` and `example` exist only in private DNS, for testing. RFC 6761
 *   §6.2 and §6.5 ask applications to use them as they would other names, so they are
 *   checked by what DNS says: the public root does not delegate them (status `nxdomain`),
 *   and in a private test network (this repository's fixtures) they are what its DNS
 *   serves.
 *
 * Only a public name is checked at all (`nonPublicName`, docs/security.md "Public names
 * only"): the parser refuses, before any DNS query, a name under a top-level name of this
 * table (special-use names the public DNS never serves an answer of its own for: `.local`,
 * `.internal`, `home.arpa`, `.onion` …) and a name whose top-level domain the Public
 * Suffix List does not hold, by itself or through a rule the name falls under
 * (`secrets-db.corp`; `uct.ac.za` passes through `ac.za`, as `.za` has no rule of its
 * own). `test` and `example` pass with TEST_NAMES (`NameRules`), for test set-ups. The
 * `example.com` names are public names under `.com`: they are checked, and answered
 * `reserved`.
 */
import { parse } from "tldts";

/**
 * TEST_NAMES (docs/security.md, "Public names only"), passed from the configuration to
 * where names and MX addresses are judged: whether `.test` and `.example` names and the
 * documentation and benchmarking ranges count as public. For test set-ups only.
 */
export interface NameRules {
  testNames: boolean;
}

export interface ReservedName {
  /** The reserved name; every name under it is reserved too. */
  name: string;
  mail: "never" | "private";
  source: string;
}

const RESERVED: readonly ReservedName[] = [
  { name: "example.com", mail: "never", source: "RFC 2606 §3, RFC 6761 §6.5" },
  { name: "example.net", mail: "never", source: "RFC 2606 §3, RFC 6761 §6.5" },
  { name: "example.org", mail: "never", source: "RFC 2606 §3, RFC 6761 §6.5" },
  { name: "invalid", mail: "never", source: "RFC 2606 §2, RFC 6761 §6.4" },
  { name: "localhost", mail: "never", source: "RFC 2606 §2, RFC 6761 §6.3" },
  { name: "test", mail: "private", source: "RFC 2606 §2, RFC 6761 §6.2" },
  { name: "example", mail: "private", source: "RFC 2606 §2, RFC 6761 §6.5" },
  { name: "local", mail: "never", source: "RFC 6762 (multicast DNS)" },
  { name: "onion", mail: "never", source: "RFC 7686 (Tor onion services)" },
  { name: "alt", mail: "never", source: "RFC 9476 (non-DNS name spaces)" },
  { name: "internal", mail: "never", source: "ICANN's reservation of 2024 for private use" },
  { name: "arpa", mail: "never", source: "RFC 3172 (infrastructure), RFC 8375 (home.arpa)" },
];

const BY_NAME: ReadonlyMap<string, ReservedName> = new Map(RESERVED.map((r) => [r.name, r]));

/**
 * The reserved name a normalised domain is or lies under, else undefined. Reserved names
 * are top-level or second-level, so only the last two labels are looked at.
 */
export function reservedName(domain: string): ReservedName | undefined {
  const last = domain.lastIndexOf(".");
  const tld = BY_NAME.get(last < 0 ? domain : domain.slice(last + 1));
  if (tld !== undefined || last < 0) return tld;
  const second = domain.lastIndexOf(".", last - 1);
  return BY_NAME.get(second < 0 ? domain : domain.slice(second + 1));
}

/** Whether the domain can never receive real mail because its name is reserved (status `reserved`). */
export function neverReceivesMail(domain: string): boolean {
  return reservedName(domain)?.mail === "never";
}

/** The Public Suffix List's ICANN section, asked for a name as it is (no URL parsing). */
const TLD_ONLY = { extractHostname: false, validateHostname: false, allowPrivateDomains: false } as const;

/**
 * Why a normalised domain is no public name, as a problem's detail; undefined for a
 * public name. Decided from the name alone, so the refusal comes before any DNS query.
 */
export function nonPublicName(domain: string, rules: NameRules): string | undefined {
  const tld = domain.slice(domain.lastIndexOf(".") + 1);
  const special = BY_NAME.get(tld);
  if (special !== undefined) {
    if (special.mail === "private" && rules.testNames) return undefined;
    return `"${domain}" is under .${tld}, a special-use name that is not checked in the public DNS (${special.source}).`;
  }
  // A TLD the list names only through its second-level rules (`.za`: `ac.za`, `co.za` …)
  // is public too, for the names under those rules.
  if (parse(tld, TLD_ONLY).isIcann !== true && parse(domain, TLD_ONLY).isIcann !== true) {
    return `"${domain}" is not a public domain: .${tld} is no top-level domain of the public DNS (it is not in the Public Suffix List).`;
  }
  return undefined;
}
