/**
 * The network a whole-service test needs, all on loopback: the authoritative DNS server
 * with a zone fixture, RDAP and WHOIS servers, and an RDAP bootstrap that sends the
 * given TLDs to that RDAP server. `env` is the configuration that points the service
 * at them (merge it with a DATABASE_URL and pass it to `loadConfig`), so no check
 * ever reaches a public address.
 */
import { type DnsTestServer, startDnsServer } from "./dns-server.js";
import {
  type LoopbackRdap,
  type LoopbackWhois,
  type RdapReply,
  startRdapServer,
  startWhoisServer,
  writeBootstrap,
} from "./loopback-registries.js";
import { fixtureZones } from "./zones.js";

export interface LoopbackNetworkOptions {
  /** Zone fixture name in test/fixtures/zones/ (default `engine`). */
  zones?: string;
  /** RDAP answer per domain (default 404: registration unknown). */
  rdap?: (domain: string) => RdapReply;
  /** WHOIS answer per domain (default "No match"). */
  whois?: (domain: string) => string | null;
  /** TLDs whose RDAP goes to the loopback server (default test, com, de). */
  tlds?: string[];
}

export interface LoopbackNetwork {
  dns: DnsTestServer;
  rdap: LoopbackRdap;
  whois: LoopbackWhois;
  /** DNS_SERVERS, DNS_TIMEOUT_MS, RDAP_BOOTSTRAP_FILE, WHOIS_SERVER, AGE_TIMEOUT_MS, TEST_NAMES (on: the fixtures are under `.test`). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startLoopbackNetwork(options: LoopbackNetworkOptions = {}): Promise<LoopbackNetwork> {
  const [dns, rdap, whois] = await Promise.all([
    startDnsServer(fixtureZones(options.zones ?? "engine")),
    startRdapServer(options.rdap ?? (() => ({ status: 404 }))),
    startWhoisServer(options.whois ?? (() => "No match\r\n")),
  ]);
  const tlds = options.tlds ?? ["test", "com", "de"];
  const bootstrapFile = await writeBootstrap(Object.fromEntries(tlds.map((tld) => [tld, rdap.baseUrl])));
  return {
    dns,
    rdap,
    whois,
    env: {
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: "300",
      RDAP_BOOTSTRAP_FILE: bootstrapFile,
      WHOIS_SERVER: whois.address,
      AGE_TIMEOUT_MS: "2000",
      TEST_NAMES: "on",
    },
    close: async () => {
      await Promise.all([dns.close(), rdap.close(), whois.close()]);
    },
  };
}
