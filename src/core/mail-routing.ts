/**
 * How mail for a domain is routed, as DNS says (SPEC §4 mx_* fields).
 * `lookupMailRouting()` (below) fills it from a DnsResolver.
 */
import { DnsError, type DnsErrorCode, type DnsResolver, type MxAnswer } from "./dns.js";

export type RoutingStatus =
  /** MX records found (hosts sorted by priority, ties by name). */
  | "mx"
  /** No MX record, but the domain has A/AAAA: the domain itself is the mail host. */
  | "fallback"
  /** RFC 7505 null MX (`0 .`): the domain says it takes no mail. */
  | "null_mx"
  /** Neither MX nor A/AAAA. */
  | "no_mail"
  /** The domain does not exist. */
  | "nxdomain"
  /**
   * The deadline passed before DNS answered: for MX (then `hosts` is empty), or for the
   * addresses of every MX host (then `hosts` lists them, without addresses).
   */
  | "dns_timeout"
  /** SERVFAIL, REFUSED or another failure that is not an answer; `hosts` as for `dns_timeout`. */
  | "dns_failure";

export interface MailHost {
  host: string;
  priority: number;
  /** IPv4 addresses first, then IPv6; empty when the host does not resolve. */
  ips: string[];
}

export interface MailRouting {
  status: RoutingStatus;
  /** Mail hosts by priority then name; for `fallback` the single domain itself (priority 0). */
  hosts: MailHost[];
  /** Name servers of the base domain (lower-case, no trailing dot); null when that look-up failed. */
  nameServers: string[] | null;
  /** The domain's own A/AAAA addresses (used for fallback and parking detection). */
  addresses: string[];
}

export interface MailRoutingOptions {
  /** MX hosts (in priority order) whose addresses are looked up; later ones keep `ips: []`. Default 10. */
  maxHosts?: number;
}

/** One query's outcome as data: its answer, or the failure kind. */
type Outcome<T> = { ok: true; value: T } | { ok: false; code: DnsErrorCode };

function outcome<T>(query: Promise<T>): Promise<Outcome<T>> {
  return query.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, code: error instanceof DnsError ? error.code : "failure" }),
  );
}

function values<T>(result: Outcome<T[]>): T[] {
  return result.ok ? result.value : [];
}

/** A failure that says nothing about the name (timeout, SERVFAIL, REFUSED …), unlike NXDOMAIN and NODATA. */
function isTemporaryFailure(result: Outcome<unknown>): boolean {
  return !result.ok && result.code !== "nodata" && result.code !== "nxdomain";
}

function failedWith(code: DnsErrorCode, ...results: Outcome<unknown>[]): boolean {
  return results.some((result) => !result.ok && result.code === code);
}

/** An answer without records: NODATA (or, defensively, an empty record list). */
function isEmpty(result: Outcome<unknown[]>): boolean {
  return result.ok ? result.value.length === 0 : result.code === "nodata";
}

/**
 * Status when the MX query returned no records. Records prove that a name exists, so an
 * NXDOMAIN decides only when no query returned any (some broken servers answer NXDOMAIN
 * for a type they do not serve); a failed MX query decides over the domain's addresses.
 */
function statusWithoutMx(
  mx: Outcome<MxAnswer[]>,
  a: Outcome<string[]>,
  aaaa: Outcome<string[]>,
): RoutingStatus {
  const hasAddresses = values(a).length > 0 || values(aaaa).length > 0;
  if (!hasAddresses && failedWith("nxdomain", mx, a, aaaa)) return "nxdomain";
  if (isTemporaryFailure(mx)) return failedWith("timeout", mx) ? "dns_timeout" : "dns_failure";
  if (hasAddresses) return "fallback";
  if (isEmpty(a) && isEmpty(aaaa)) return "no_mail";
  return failedWith("timeout", a, aaaa) ? "dns_timeout" : "dns_failure";
}

function isNullExchange(exchange: string): boolean {
  return exchange === "" || exchange === ".";
}

/** MX records as hosts: null entries dropped, one entry per host (its best priority), by priority then name. */
function mxHosts(records: MxAnswer[]): { host: string; priority: number }[] {
  const best = new Map<string, number>();
  for (const { exchange, priority } of records) {
    if (isNullExchange(exchange)) continue;
    const known = best.get(exchange);
    if (known === undefined || priority < known) best.set(exchange, priority);
  }
  return [...best]
    .map(([host, priority]) => ({ host, priority }))
    .sort((x, y) => x.priority - y.priority || (x.host < y.host ? -1 : x.host > y.host ? 1 : 0));
}

/** The A and AAAA answers of one host. */
function addressLookups(host: string, resolver: DnsResolver): Promise<Outcome<string[]>[]> {
  return Promise.all([outcome(resolver.a(host)), outcome(resolver.aaaa(host))]);
}

/**
 * Status when MX records named hosts: `mx`, unless no host got an address because their
 * look-ups failed temporarily — then where mail goes is unknown, not "nowhere".
 */
function statusWithMx(hosts: MailHost[], lookups: Outcome<string[]>[]): RoutingStatus {
  const failures = lookups.filter(isTemporaryFailure);
  if (hosts.some((host) => host.ips.length > 0) || failures.length === 0) return "mx";
  return failedWith("timeout", ...failures) ? "dns_timeout" : "dns_failure";
}

/**
 * Looks up how mail for `domain` is routed: its MX, its own A and AAAA and the name
 * servers of `baseDomain` in parallel, then the addresses of the MX hosts in parallel.
 * Never rejects: every failure ends up in the status (or `nameServers: null`).
 *
 * - MX records → `mx`; a lone null MX (`0 .`) → `null_mx` (null entries beside real
 *   hosts are ignored). When no MX host has an address and some of their address
 *   look-ups failed (not NXDOMAIN/NODATA) → `dns_timeout` / `dns_failure`, hosts kept.
 * - No records at all and an NXDOMAIN for MX, A or AAAA of the domain → `nxdomain`.
 * - MX timed out → `dns_timeout`; SERVFAIL, REFUSED or another failure → `dns_failure`.
 * - No MX (NODATA): addresses → `fallback`; A and AAAA both NODATA → `no_mail`; else
 *   the A/AAAA failure (`dns_timeout` if one timed out, else `dns_failure`).
 * - Name servers: failure → null; NODATA or NXDOMAIN → [] (an answer: there are none).
 */
export async function lookupMailRouting(
  domain: string,
  baseDomain: string,
  resolver: DnsResolver,
  options: MailRoutingOptions = {},
): Promise<MailRouting> {
  const [mx, a, aaaa, ns] = await Promise.all([
    outcome(resolver.mx(domain)),
    outcome(resolver.a(domain)),
    outcome(resolver.aaaa(domain)),
    outcome(resolver.ns(baseDomain)),
  ]);
  const addresses = [...values(a), ...values(aaaa)];
  const nameServers = ns.ok || ns.code === "nodata" || ns.code === "nxdomain" ? [...values(ns)].sort() : null;
  const records = values(mx);

  if (records.length === 0) {
    const status = statusWithoutMx(mx, a, aaaa);
    const hosts = status === "fallback" ? [{ host: domain, priority: 0, ips: [...addresses] }] : [];
    return { status, hosts, nameServers, addresses };
  }
  const hosts = mxHosts(records);
  if (hosts.length === 0) return { status: "null_mx", hosts: [], nameServers, addresses };

  const maxHosts = options.maxHosts ?? 10;
  const lookups = await Promise.all(
    hosts.map(({ host }, index) =>
      index >= maxHosts ? [] : host === domain ? [a, aaaa] : addressLookups(host, resolver),
    ),
  );
  const resolved = hosts.map((host, index) => ({ ...host, ips: (lookups[index] ?? []).flatMap(values) }));
  return { status: statusWithMx(resolved, lookups.flat()), hosts: resolved, nameServers, addresses };
}
