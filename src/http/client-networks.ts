/**
 * Which network a client address belongs to, for the limits that count clients
 * (docs/security.md): an IPv6 subscriber is handed a whole /64 and may rotate through it
 * at will, so a limit "per address" counts an IPv6 client by its /64.
 */
import ipaddr from "ipaddr.js";

/** The client's /24 (IPv4, also IPv4-mapped IPv6) or /64 (IPv6) prefix; the address itself when it is neither. */
export function prefixOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  // process(): an IPv4-mapped IPv6 address (::ffff:192.0.2.7) is its IPv4 address.
  const ip = ipaddr.process(address);
  if (ip.kind() === "ipv4") return `${(ip as ipaddr.IPv4).octets.slice(0, 3).join(".")}.0/24`;
  const groups = (ip as ipaddr.IPv6).parts.slice(0, 4).map((group) => group.toString(16));
  return `${groups.join(":")}::/64`;
}

/** One client of a per-address limit: an IPv4 address itself, an IPv6 address by its /64. */
export function subscriberOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  return ip.kind() === "ipv4" ? ip.toString() : prefixOf(address);
}
