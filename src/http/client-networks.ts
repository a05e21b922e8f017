/**
 * Which network a client address belongs to, for the limits that count clients
 * (docs/security.md): an IPv6 subscriber is handed a whole /64 and may rotate through it
 * at will, so a limit "per address" counts an IPv6 client by its /64.
 */
import ipaddr from "ipaddr.js";

/** The address parsed, an IPv4-mapped IPv6 one (::ffff:192.0.2.7) as its IPv4 address; undefined when it is none. */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  return ipaddr.isValid(address) ? ipaddr.process(address) : undefined;
}

/** An IPv6 address's /64, as `2001:db8:1:2::/64`. */
function prefix64(ip: ipaddr.IPv6): string {
  const groups = ip.parts.slice(0, 4).map((group) => group.toString(16));
  return `${groups.join(":")}::/64`;
}

/** The client's /24 (IPv4, also IPv4-mapped IPv6) or /64 (IPv6) prefix; the address itself when it is neither. */
export function prefixOf(address: string): string {
  const ip = parsed(address);
  if (ip === undefined) return address;
  return ip.kind() === "ipv4"
    ? `${(ip as ipaddr.IPv4).octets.slice(0, 3).join(".")}.0/24`
    : prefix64(ip as ipaddr.IPv6);
}

/** One client of a per-address limit: an IPv4 address itself, an IPv6 address by its /64. */
export function subscriberOf(address: string): string {
  const ip = parsed(address);
  if (ip === undefined) return address;
  return ip.kind() === "ipv4" ? ip.toString() : prefix64(ip as ipaddr.IPv6);
}
