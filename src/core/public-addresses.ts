/**
 * Which MX addresses the internet can reach (docs/security.md, "Public names only"): an
 * address in a loopback, private (RFC 1918, ULA fc00::/7), link-local, CGNAT
 * (100.64.0.0/10), multicast or reserved range (0.0.0.0/8, 240.0.0.0/4, broadcast, the
 * documentation and benchmarking ranges, …) is no public mail host. ipaddr.js names the
 * ranges; an IPv4-mapped IPv6 address is judged by its IPv4 address. Such an address is
 * never shown (a record's `mx_ip`, the evidence, a page) and never learnt: the routing a
 * verdict is decided on keeps only the public ones (`withPublicAddresses`).
 *
 * TEST_NAMES (`NameRules`) takes the documentation and benchmarking ranges as
 * public, where this repository's fixtures put their mail hosts; never loopback, private or
 * link-local.
 */
import ipaddr from "ipaddr.js";
import { isNonPublicHost, type MailHost, type MailRouting } from "./mail-routing.js";
import type { NameRules } from "./reserved-names.js";

/** The ranges ipaddr.js names that no mail from the internet reaches. */
const NOT_PUBLIC = new Set([
  "unspecified",
  "broadcast",
  "multicast",
  "linkLocal",
  "loopback",
  "carrierGradeNat",
  "private",
  "reserved",
  "uniqueLocal",
  "deprecatedSiteLocal",
  "discard",
  "benchmarking",
]);

/** Documentation (RFC 5737, RFC 3849) and benchmarking (RFC 2544, RFC 5180) ranges: TEST_NAMES takes them as public. */
const TEST_RANGES = [
  "192.0.2.0/24",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "198.18.0.0/15",
  "2001:db8::/32",
  "2001:2::/48",
].map((cidr) => ipaddr.parseCIDR(cidr));

function inTestRange(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return TEST_RANGES.some(([range, bits]) => address.kind() === range.kind() && address.match(range, bits));
}

/** What an address is, whatever TEST_NAMES says: public, or in a test range. */
interface AddressClass {
  public: boolean;
  testRange: boolean;
}

function classify(ip: string): AddressClass {
  if (!ipaddr.isValid(ip)) return { public: false, testRange: false };
  // process(): an IPv4-mapped IPv6 address (::ffff:10.0.0.5) becomes its IPv4 address.
  const address = ipaddr.process(ip);
  if (!NOT_PUBLIC.has(address.range())) return { public: true, testRange: false };
  return { public: false, testRange: inTestRange(address) };
}

/**
 * Classes of the addresses seen lately: the same mail hosts' addresses come back check
 * after check, and parsing them is a quarter of a check's time. Bounded; a miss only
 * costs the parse.
 */
const classes = new Map<string, AddressClass>();
const CLASSES_KEPT = 10_000;

function classOf(ip: string): AddressClass {
  let known = classes.get(ip);
  if (known === undefined) {
    known = classify(ip);
    if (classes.size >= CLASSES_KEPT) classes.clear();
    classes.set(ip, known);
  }
  return known;
}

/** Whether mail from the internet can reach the address (an unparsable one cannot). */
export function isPublicAddress(ip: string, rules: NameRules): boolean {
  const known = classOf(ip);
  return known.public || (known.testRange && rules.testNames);
}

/**
 * Whether the mail hosts DNS gave (the MX hosts, or the domain itself for the fallback)
 * have no public address, and some have addresses that are not public or names outside
 * the public DNS: mail from the internet cannot be delivered (status `mx_private`).
 */
export function mailHostsArePrivate(routing: MailRouting, rules: NameRules): boolean {
  if (routing.status !== "mx" && routing.status !== "fallback") return false;
  const ips = routing.hosts.flatMap((host) => host.ips);
  if (ips.some((ip) => isPublicAddress(ip, rules))) return false;
  return ips.length > 0 || routing.hosts.some((host) => isNonPublicHost(host.host, rules));
}

function publicOnly(ips: string[], rules: NameRules): string[] {
  const isPublic = (ip: string) => isPublicAddress(ip, rules);
  return ips.every(isPublic) ? ips : ips.filter(isPublic);
}

/** The routing with every address that is not public left out: host names stay, their private addresses go. */
export function withPublicAddresses(routing: MailRouting, rules: NameRules): MailRouting {
  const hosts = routing.hosts.map((host): MailHost => {
    const ips = publicOnly(host.ips, rules);
    return ips === host.ips ? host : { ...host, ips };
  });
  const addresses = publicOnly(routing.addresses, rules);
  const same = addresses === routing.addresses && hosts.every((host, i) => host === routing.hosts[i]);
  return same ? routing : { ...routing, hosts, addresses };
}
