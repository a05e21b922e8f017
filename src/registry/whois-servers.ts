/**
 * Which WHOIS server (TCP port 43) to ask for a TLD: the bundled table
 * `data/whois-servers.txt` (lines `tld server[:port]`, `#` comments), or one server for
 * every query when `WHOIS_SERVER` is set.
 */
import { lookupBySuffix } from "./suffix-table.js";

export interface WhoisServer {
  host: string;
  port: number;
}

export type WhoisServers = ReadonlyMap<string, WhoisServer>;

const WHOIS_PORT = 43;

/** `host`, `host:port`, `[ipv6]` or `[ipv6]:port`; throws on anything else. */
export function parseWhoisServer(value: string): WhoisServer {
  const match = /^(?:\[([\da-fA-F:.]+)\]|([\w.-]+))(?::(\d{1,5}))?$/.exec(value.trim());
  const port = match?.[3] === undefined ? WHOIS_PORT : Number(match[3]);
  const host = match?.[1] ?? match?.[2];
  if (host === undefined || port < 1 || port > 65_535)
    throw new Error(`not a WHOIS server host[:port]: "${value}"`);
  return { host, port };
}

export function parseWhoisServers(text: string): WhoisServers {
  const table = new Map<string, WhoisServer>();
  text.split("\n").forEach((raw, index) => {
    const line = raw.replace(/#.*/, "").trim();
    if (line === "") return;
    const [tld, server, ...rest] = line.split(/\s+/);
    if (tld === undefined || server === undefined || rest.length > 0) {
      throw new Error(`WHOIS server table line ${index + 1}: expected "tld server[:port]"`);
    }
    table.set(tld.toLowerCase().replace(/^\./, ""), parseWhoisServer(server));
  });
  return table;
}

export function whoisServerFor(servers: WhoisServers, domain: string): WhoisServer | undefined {
  return lookupBySuffix(servers, domain);
}
