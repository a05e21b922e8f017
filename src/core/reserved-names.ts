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
 */

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
