/**
 * How mail for a domain is routed, as DNS says (docs/api.md "The record" mx_* fields).
 * `lookupMailRouting()` (below) fills it from a DnsResolver.
 */
import type { DnsAnswer, DnsFailureCode, DnsResolver, MxAnswer } from "./dns.js";
import { type NameRules, nonPublicName } from "./reserved-names.js";

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
   * MX records name hosts, and DNS says every one of them does not exist (NXDOMAIN for
   * its A and its AAAA): mail to the domain bounces. `hosts` lists them, without addresses.
   */
  | "mx_missing"
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
  /**
   * True when some look-up failed for the time being (a timeout, SERVFAIL, REFUSED) while
   * the status still says what the others found: the domain's A or AAAA beside its MX, the
   * name servers, or some MX hosts' addresses. Absent otherwise (and in facts stored before it).
   */
  incomplete?: true;
}

export interface MailRoutingOptions extends NameRules {
  /** MX hosts (in priority order) whose addresses are looked up; later ones keep `ips: []`. Default 10. */
  maxHosts?: number;
}

function values<T>(answer: DnsAnswer<T>): T[] {
  return answer.ok ? answer.records : [];
}

/** A failure that says nothing about the name (timeout, SERVFAIL, REFUSED …), unlike NXDOMAIN and NODATA. */
function isTemporaryFailure(answer: DnsAnswer<unknown>): boolean {
  return !answer.ok && answer.code !== "nodata" && answer.code !== "nxdomain";
}

function isNxdomain(answer: DnsAnswer<unknown>): boolean {
  return !answer.ok && answer.code === "nxdomain";
}

function failedWith(code: DnsFailureCode, ...answers: DnsAnswer<unknown>[]): boolean {
  return answers.some((answer) => !answer.ok && answer.code === code);
}

/** An answer without records: NODATA (or, defensively, an empty record list). */
function isEmpty(answer: DnsAnswer<unknown>): boolean {
  return answer.ok ? answer.records.length === 0 : answer.code === "nodata";
}

/**
 * Status when the MX query returned no records. Records prove that a name exists, so an
 * NXDOMAIN decides only when no query returned any (some broken servers answer NXDOMAIN
 * for a type they do not serve); a failed MX query decides over the domain's addresses.
 */
function statusWithoutMx(
  mx: DnsAnswer<MxAnswer>,
  a: DnsAnswer<string>,
  aaaa: DnsAnswer<string>,
): RoutingStatus {
  const hasAddresses = values(a).length > 0 || values(aaaa).length > 0;
  if (!hasAddresses && failedWith("nxdomain", mx, a, aaaa)) return "nxdomain";
  if (isTemporaryFailure(mx)) return failedWith("timeout", mx) ? "dns_timeout" : "dns_failure";
  if (hasAddresses) return "fallback";
  if (isEmpty(a) && isEmpty(aaaa)) return "no_mail";
  return failedWith("timeout", a, aaaa) ? "dns_timeout" : "dns_failure";
}

/**
 * Whether an MX host's name lies outside the public DNS (`db.prod.internal`, `printer.local`,
 * an unknown top-level domain): it is never looked up, so a public domain cannot make the
 * operator's resolver answer for internal names (docs/security.md, "Public names only").
 */
export function isNonPublicHost(host: string, rules: NameRules): boolean {
  return nonPublicName(host.toLowerCase(), rules) !== undefined;
}

/** The answer kept for a host that is not asked: it has no address anyone on the internet could use. */
const NOT_ASKED: DnsAnswer<string> = { ok: false, code: "nodata" };

function isNullExchange(exchange: string): boolean {
  return exchange === "" || exchange === ".";
}

const HOST_NAME = /^[A-Za-z0-9.-]{1,253}$/;

/**
 * Whether an MX record's exchange is a host name at all: letters, digits, hyphens and
 * dots, at most 253 characters. DNS carries any byte in a name (`=cmd|'/Ccalc'!A0.evil.org`);
 * such a name is never taken as a mail host, never looked up and never shown.
 */
export function isHostName(exchange: string): boolean {
  return HOST_NAME.test(exchange);
}

/** MX records as hosts: null entries and names that are no host name dropped, one entry per host (its best priority), by priority then name. */
function mxHosts(records: readonly MxAnswer[]): { host: string; priority: number }[] {
  const best = new Map<string, number>();
  for (const { exchange, priority } of records) {
    if (isNullExchange(exchange) || !isHostName(exchange)) continue;
    const known = best.get(exchange);
    if (known === undefined || priority < known) best.set(exchange, priority);
  }
  const hosts: { host: string; priority: number }[] = [];
  for (const [host, priority] of best) hosts.push({ host, priority });
  return hosts.sort((x, y) => x.priority - y.priority || (x.host < y.host ? -1 : x.host > y.host ? 1 : 0));
}

/**
 * Status when MX records named hosts: `mx`, unless no host got an address because their
 * look-ups failed temporarily — then where mail goes is unknown, not "nowhere" — or
 * because every host was asked and none exists (`mx_missing`). A host that exists
 * without an address (NODATA) leaves `mx`: the soft signal "MX unresolvable".
 */
function statusWithMx(hosts: MailHost[], lookups: DnsAnswer<string>[]): RoutingStatus {
  if (hosts.some((host) => host.ips.length > 0)) return "mx";
  const failures = lookups.filter(isTemporaryFailure);
  if (failures.length > 0) return failedWith("timeout", ...failures) ? "dns_timeout" : "dns_failure";
  const everyHostAsked = lookups.length === 2 * hosts.length;
  return everyHostAsked && lookups.every(isNxdomain) ? "mx_missing" : "mx";
}

/**
 * Looks up how mail for `domain` is routed: its MX, its own A and AAAA and the name
 * servers of `baseDomain` in parallel, then the addresses of the MX hosts in parallel.
 * Never rejects: every failure ends up in the status (or `nameServers: null`).
 *
 * - MX records → `mx`; a lone null MX (`0 .`) → `null_mx` (null entries beside real
 *   hosts are ignored). An exchange that is no host name (`isHostName`) is dropped;
 *   when only such names (and null entries) remain → `mx_missing`, no hosts. When no MX host has an address and some of their address
 *   look-ups failed (not NXDOMAIN/NODATA) → `dns_timeout` / `dns_failure`, hosts kept;
 *   when every host was asked and each one's A and AAAA said NXDOMAIN → `mx_missing`.
 * - No records at all and an NXDOMAIN for MX, A or AAAA of the domain → `nxdomain`.
 * - MX timed out → `dns_timeout`; SERVFAIL, REFUSED or another failure → `dns_failure`.
 * - No MX (NODATA): addresses → `fallback`; A and AAAA both NODATA → `no_mail`; else
 *   the A/AAAA failure (`dns_timeout` if one timed out, else `dns_failure`).
 * - An MX host whose name is not public (`isNonPublicHost`) is not asked: no addresses.
 * - Name servers: failure → null; NODATA or NXDOMAIN → [] (an answer: there are none).
 * - Any other look-up that failed for the time being → `incomplete: true`.
 */
export async function lookupMailRouting(
  domain: string,
  baseDomain: string,
  resolver: DnsResolver,
  options: MailRoutingOptions,
): Promise<MailRouting> {
  const [mx, a, aaaa, ns] = await Promise.all([
    resolver.mx(domain),
    resolver.a(domain),
    resolver.aaaa(domain),
    resolver.ns(baseDomain),
  ]);
  // Answers are shared and read-only: copied (concat, slice) before anything is kept or sorted.
  const addresses = values(a).concat(values(aaaa));
  const nameServers = isTemporaryFailure(ns) ? null : values(ns).slice().sort();
  const records = values(mx);
  const failed = [mx, a, aaaa, ns].some(isTemporaryFailure);

  if (records.length === 0) {
    const status = statusWithoutMx(mx, a, aaaa);
    const hosts = status === "fallback" ? [{ host: domain, priority: 0, ips: addresses.slice() }] : [];
    return withFailures({ status, hosts, nameServers, addresses }, failed);
  }
  const hosts = mxHosts(records);
  if (hosts.length === 0) {
    // Only names that are no host name (beside null entries): mail has nowhere to go, as for a missing host.
    const invalid = records.some(({ exchange }) => !isNullExchange(exchange));
    const status = invalid ? "mx_missing" : "null_mx";
    return withFailures({ status, hosts: [], nameServers, addresses }, failed);
  }

  const asked = Math.min(hosts.length, options.maxHosts ?? 10);
  const queries: Promise<DnsAnswer<string>>[] = [];
  for (let index = 0; index < asked; index++) {
    const { host } = hosts[index] as { host: string };
    if (host === domain) {
      // The domain's own addresses are already known when it names itself as its MX host.
      queries.push(Promise.resolve(a), Promise.resolve(aaaa));
    } else if (isNonPublicHost(host, options)) {
      queries.push(Promise.resolve(NOT_ASKED), Promise.resolve(NOT_ASKED));
    } else {
      queries.push(resolver.a(host), resolver.aaaa(host));
    }
  }
  const lookups = await Promise.all(queries);
  const resolved = hosts.map(({ host, priority }, index) => ({
    host,
    priority,
    ips:
      index < asked
        ? values(lookups[2 * index] as DnsAnswer<string>).concat(
            values(lookups[2 * index + 1] as DnsAnswer<string>),
          )
        : [],
  }));
  return withFailures(
    { status: statusWithMx(resolved, lookups), hosts: resolved, nameServers, addresses },
    failed || lookups.some(isTemporaryFailure),
  );
}

/** The routing, marked `incomplete` when a look-up failed that its status does not already say. */
function withFailures(routing: MailRouting, failed: boolean): MailRouting {
  const said = routing.status === "dns_timeout" || routing.status === "dns_failure";
  return failed && !said ? { ...routing, incomplete: true } : routing;
}
