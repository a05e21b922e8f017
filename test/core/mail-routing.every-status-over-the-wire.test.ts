import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { type Pace, startPace } from "../../harness/machine-pace.js";
import { fixtureZones } from "../../harness/zones.js";
import { lookupMailRouting, type MailRouting } from "../../src/core/mail-routing.js";
import { NodeDnsResolver } from "../../src/dns/node-dns-resolver.js";

/** The resolver's deadline on a quiet machine; stretched by the machine's pace, so that answering names answer before it. */
const TIMEOUT_MS = 300;

let server: DnsTestServer;
let resolver: NodeDnsResolver;
/** The machine's pace at the start: it stretches the resolver's deadline and the bounds on time alike. */
let pace: Pace;

beforeAll(async () => {
  server = await startDnsServer(fixtureZones("engine"));
  pace = startPace();
  resolver = new NodeDnsResolver({ servers: [server.address], timeoutMs: Math.ceil(pace.bound(TIMEOUT_MS)) });
});
afterAll(() => server.close());

function lookup(domain: string, baseDomain = domain): Promise<MailRouting> {
  return lookupMailRouting(domain, baseDomain, resolver, TEST_NAMES_ON);
}

describe("lookupMailRouting over the wire (fixture engine.json)", () => {
  it("lists a provider's MX hosts by priority, ties by name, IPv4 before IPv6", async () => {
    expect(await lookup("google-hosted.test")).toEqual({
      status: "mx",
      hosts: [
        { host: "aspmx.l.google.com", priority: 1, ips: ["192.0.2.10", "192.0.2.11", "2001:db8::10"] },
        { host: "alt1.aspmx.l.google.com", priority: 5, ips: ["192.0.2.12", "2001:db8::12"] },
        { host: "alt2.aspmx.l.google.com", priority: 5, ips: ["192.0.2.13", "2001:db8::13"] },
        { host: "alt3.aspmx.l.google.com", priority: 10, ips: ["192.0.2.14", "2001:db8::14"] },
        { host: "alt4.aspmx.l.google.com", priority: 10, ips: ["192.0.2.15", "2001:db8::15"] },
      ],
      nameServers: ["ns-a.dns-host.example", "ns-b.dns-host.example"],
      addresses: ["198.51.100.10"],
    });
  });

  it("breaks an equal-priority tie by host name", async () => {
    const routing = await lookup("tie.test");
    expect(routing.hosts.map(({ host, priority }) => [host, priority])).toEqual([
      ["mx-a.tie.test", 10],
      ["mx-b.tie.test", 10],
      ["backup.tie.test", 20],
    ]);
  });

  it("takes the name servers of the base domain for a subdomain", async () => {
    const routing = await lookup("eu.google-hosted.test", "google-hosted.test");
    expect(routing.status).toBe("mx");
    expect(routing.nameServers).toEqual(["ns-a.dns-host.example", "ns-b.dns-host.example"]);
  });

  it("uses the domain itself when there is no MX but an address", async () => {
    expect(await lookup("fallback.test")).toEqual({
      status: "fallback",
      hosts: [{ host: "fallback.test", priority: 0, ips: ["198.51.100.20", "2001:db8:20::1"] }],
      nameServers: ["ns-a.dns-host.example"],
      addresses: ["198.51.100.20", "2001:db8:20::1"],
    });
  });

  it.each([
    ["null-mx.test", "null_mx"],
    ["no-mail.test", "no_mail"],
    ["does-not-exist.test", "nxdomain"],
    ["servfail.test", "dns_failure"],
    ["refused.test", "dns_failure"],
    ["timeout.test", "dns_timeout"],
    ["mx-timeout.test", "dns_timeout"],
    ["a-timeout.test", "dns_timeout"],
  ])("%s → %s, without hosts", async (domain, status) => {
    const routing = await lookup(domain);
    expect(routing.status).toBe(status);
    expect(routing.hosts).toEqual([]);
  });

  it("keeps the captured name servers and addresses beside a null MX", async () => {
    expect(await lookup("null-mx.test")).toEqual({
      status: "null_mx",
      hosts: [],
      nameServers: ["ns-a.dns-host.example"],
      addresses: ["198.51.100.30"],
    });
  });

  it("finishes a timed-out domain at the deadline, well under 2 s", async () => {
    const started = performance.now();
    const routing = await lookup("timeout.test");
    const elapsed = performance.now() - started;
    expect(routing).toEqual({ status: "dns_timeout", hosts: [], nameServers: null, addresses: [] });
    expect(elapsed).toBeLessThan(pace.bound(1000));
  });

  it("looks up an IDN domain in its ASCII form", async () => {
    const routing = await lookup("xn--mnchen-3ya.de");
    expect(routing.hosts).toEqual([{ host: "mail.xn--mnchen-3ya.de", priority: 10, ips: ["198.51.100.50"] }]);
  });

  it("keeps an MX host that does not resolve, with no addresses", async () => {
    const routing = await lookup("unresolvable-mx.test");
    expect(routing.status).toBe("mx");
    expect(routing.hosts).toEqual([
      { host: "mx.unresolvable-mx.test", priority: 10, ips: [] },
      { host: "mx2.unresolvable-mx.test", priority: 20, ips: ["198.51.100.71"] },
    ]);
  });

  it("lists the IPv6 address of an IPv6-only MX host", async () => {
    const routing = await lookup("ipv6-only-mx.test");
    expect(routing.hosts).toEqual([
      { host: "mx6.ipv6-only-mx.test", priority: 10, ips: ["2001:db8:80::25"] },
    ]);
  });

  it("captures name servers on a parking service", async () => {
    const routing = await lookup("parked-domain.test");
    expect(routing.nameServers).toEqual(["ns1.sedoparking.com", "ns2.sedoparking.com"]);
    expect(routing.hosts.map(({ host }) => host)).toEqual(["mx.sedoparking.com"]);
    expect(routing.addresses).toEqual(["203.0.113.90"]);
  });

  it("reports name servers that fail as null without changing the status, the routing incomplete", async () => {
    const routing = await lookup("ns-servfail.test");
    expect(routing.status).toBe("mx");
    expect(routing.nameServers).toBeNull();
    expect(routing.incomplete).toBe(true);
  });

  it("resolves a self-hosted domain's MX under the domain itself", async () => {
    const routing = await lookup("example-selfhosted.test");
    expect(routing.hosts).toEqual([
      { host: "mail.example-selfhosted.test", priority: 10, ips: ["198.51.100.101", "2001:db8:100::25"] },
    ]);
    expect(routing.nameServers).toEqual(["ns1.example-selfhosted.test", "ns2.example-selfhosted.test"]);
  });

  it("makes four queries for the domain and two per MX host, and none for a null MX", async () => {
    server.queries.clear();
    await lookup("tie.test");
    expect(server.queries.total).toBe(4 + 2 * 3);
    server.queries.clear();
    await lookup("null-mx.test");
    expect(server.queries.total).toBe(4);
  });

  it("answers other domains normally while one of them times out", async () => {
    const domains = [
      "gmail.com",
      "fallback.test",
      "null-mx.test",
      "does-not-exist.test",
      "servfail.test",
      "tie.test",
    ];
    const [slow, ...others] = await Promise.all([
      lookup("timeout.test"),
      ...Array.from({ length: 5 }, () => domains)
        .flat()
        .map((domain) => lookup(domain)),
    ]);
    expect(slow?.status).toBe("dns_timeout");
    expect(others.map(({ status }) => status)).toEqual(
      Array.from({ length: 5 }, () => ["mx", "fallback", "null_mx", "nxdomain", "dns_failure", "mx"]).flat(),
    );
  });
});
