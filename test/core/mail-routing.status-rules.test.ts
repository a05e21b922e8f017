import { describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { MemoryResolver } from "../../harness/memory-resolver.js";
import { type NameFixture, Zones } from "../../harness/zones.js";
import { lookupMailRouting, type RoutingStatus } from "../../src/core/mail-routing.js";

function resolverFor(names: Record<string, NameFixture>): MemoryResolver {
  return new MemoryResolver(new Zones({ zones: ["test"], names }));
}

const HOST = { A: ["192.0.2.1"] };

describe("lookupMailRouting status rules", () => {
  it.each<[string, NameFixture, RoutingStatus]>([
    ["MX records", { MX: ["10 mx.host.test"] }, "mx"],
    [
      "MX records, A and AAAA NXDOMAIN (broken server)",
      { MX: ["10 mx.host.test"], behaviour: { A: "nxdomain", AAAA: "nxdomain" } },
      "mx",
    ],
    [
      "MX records, A and AAAA fail",
      { MX: ["10 mx.host.test"], behaviour: { A: "servfail", AAAA: "drop" } },
      "mx",
    ],
    ["a lone null MX", { MX: ["0 ."], A: ["192.0.2.9"] }, "null_mx"],
    ["no MX, an A", { A: ["192.0.2.9"] }, "fallback"],
    ["no MX, only an AAAA", { AAAA: ["2001:db8::9"] }, "fallback"],
    [
      "no MX, an A, AAAA NXDOMAIN (broken server)",
      { A: ["192.0.2.9"], behaviour: { AAAA: "nxdomain" } },
      "fallback",
    ],
    ["no MX, no address", { NS: ["ns.host.test"] }, "no_mail"],
    ["no MX, A NXDOMAIN", { NS: ["ns.host.test"], behaviour: { A: "nxdomain" } }, "nxdomain"],
    ["MX NXDOMAIN, no address", { NS: ["ns.host.test"], behaviour: { MX: "nxdomain" } }, "nxdomain"],
    ["MX NXDOMAIN, an A (broken server)", { A: ["192.0.2.9"], behaviour: { MX: "nxdomain" } }, "fallback"],
    ["MX timeout, A NXDOMAIN", { behaviour: { MX: "drop", A: "nxdomain" } }, "nxdomain"],
    ["MX SERVFAIL, AAAA NXDOMAIN", { behaviour: { MX: "servfail", AAAA: "nxdomain" } }, "nxdomain"],
    ["MX timeout, A answers", { A: ["192.0.2.9"], behaviour: { MX: "drop" } }, "dns_timeout"],
    ["MX SERVFAIL, A answers", { A: ["192.0.2.9"], behaviour: { MX: "servfail" } }, "dns_failure"],
    ["MX REFUSED", { behaviour: { MX: "refused" } }, "dns_failure"],
    ["no MX, A timeout", { NS: ["ns.host.test"], behaviour: { A: "drop" } }, "dns_timeout"],
    ["no MX, AAAA SERVFAIL and no A", { behaviour: { AAAA: "servfail" } }, "dns_failure"],
    ["everything SERVFAIL", { behaviour: "servfail" }, "dns_failure"],
    ["everything times out", { behaviour: "drop" }, "dns_timeout"],
  ])("%s → %s", async (_what, fixture, status) => {
    const resolver = resolverFor({ "domain.test": fixture, "mx.host.test": HOST });
    expect((await lookupMailRouting("domain.test", "domain.test", resolver, TEST_NAMES_ON)).status).toBe(
      status,
    );
  });

  it("says nxdomain for a name that does not exist, whatever else fails", async () => {
    const resolver = resolverFor({ "other.test": HOST });
    expect(await lookupMailRouting("missing.test", "missing.test", resolver, TEST_NAMES_ON)).toEqual({
      status: "nxdomain",
      hosts: [],
      nameServers: [],
      addresses: [],
    });
  });

  it("sorts hosts by priority then name, drops duplicates and null entries beside real hosts", async () => {
    const resolver = resolverFor({
      "domain.test": { MX: ["20 b.host.test", "10 c.host.test", "0 .", "10 a.host.test", "5 b.host.test"] },
      "a.host.test": HOST,
      "b.host.test": HOST,
      "c.host.test": HOST,
    });
    const routing = await lookupMailRouting("domain.test", "domain.test", resolver, TEST_NAMES_ON);
    expect(routing.hosts.map(({ host, priority }) => `${priority} ${host}`)).toEqual([
      "5 b.host.test",
      "10 a.host.test",
      "10 c.host.test",
    ]);
  });

  it("lists IPv4 before IPv6 for a host and an empty list for a host that does not resolve", async () => {
    const resolver = resolverFor({
      "domain.test": { MX: ["10 dual.host.test", "20 gone.host.test", "30 broken.host.test"] },
      "dual.host.test": { AAAA: ["2001:db8::1"], A: ["192.0.2.1"] },
      "broken.host.test": { behaviour: "servfail" },
    });
    const routing = await lookupMailRouting("domain.test", "domain.test", resolver, TEST_NAMES_ON);
    expect(routing.hosts.map(({ ips }) => ips)).toEqual([["192.0.2.1", "2001:db8::1"], [], []]);
  });

  it("looks up addresses of the first maxHosts hosts only, keeping the others listed", async () => {
    const names: Record<string, NameFixture> = {
      "domain.test": { MX: Array.from({ length: 12 }, (_, i) => `${i} mx${i}.host.test`) },
    };
    for (let i = 0; i < 12; i++) names[`mx${i}.host.test`] = HOST;
    const resolver = resolverFor(names);
    const routing = await lookupMailRouting("domain.test", "domain.test", resolver, {
      maxHosts: 3,
      ...TEST_NAMES_ON,
    });
    expect(routing.hosts).toHaveLength(12);
    expect(routing.hosts.filter(({ ips }) => ips.length > 0).map(({ host }) => host)).toEqual([
      "mx0.host.test",
      "mx1.host.test",
      "mx2.host.test",
    ]);
    expect(resolver.queries.total).toBe(4 + 2 * 3);
  });

  it("defaults to ten looked-up hosts", async () => {
    const names: Record<string, NameFixture> = {
      "domain.test": { MX: Array.from({ length: 12 }, (_, i) => `${i} mx${i}.host.test`) },
    };
    const resolver = resolverFor(names);
    await lookupMailRouting("domain.test", "domain.test", resolver, TEST_NAMES_ON);
    expect(resolver.queries.total).toBe(4 + 2 * 10);
  });

  it.each<[string, number, number | undefined, RoutingStatus]>([
    ["every host asked and none exists", 3, undefined, "mx_missing"],
    ["hosts beyond maxHosts not asked: unknown, so mx", 3, 2, "mx"],
  ])("MX hosts that do not exist: %s → %s", async (_what, count, maxHosts, status) => {
    const names: Record<string, NameFixture> = {
      "domain.test": { MX: Array.from({ length: count }, (_, i) => `${i} gone${i}.host.test`) },
    };
    const routing = await lookupMailRouting("domain.test", "domain.test", resolverFor(names), {
      maxHosts,
      ...TEST_NAMES_ON,
    });
    expect(routing.status).toBe(status);
    expect(routing.hosts.map(({ host, ips }) => [host, ips])).toEqual(
      Array.from({ length: count }, (_, i) => [`gone${i}.host.test`, []]),
    );
  });

  it("reuses the domain's own addresses when it is its own MX host", async () => {
    const resolver = resolverFor({ "domain.test": { MX: ["10 domain.test"], A: ["192.0.2.7"] } });
    const routing = await lookupMailRouting("domain.test", "domain.test", resolver, TEST_NAMES_ON);
    expect(routing.hosts).toEqual([{ host: "domain.test", priority: 10, ips: ["192.0.2.7"] }]);
    expect(resolver.queries.total).toBe(4);
  });

  it.each<[string, NameFixture, string[] | null]>([
    ["sorted name servers", { NS: ["ns2.dns.test", "NS1.dns.test."] }, ["ns1.dns.test", "ns2.dns.test"]],
    ["none (NODATA)", { A: ["192.0.2.1"] }, []],
    ["null when the look-up times out", { behaviour: { NS: "drop" } }, null],
    ["null on SERVFAIL", { behaviour: { NS: "servfail" } }, null],
  ])("name servers of the base domain: %s", async (_what, base, nameServers) => {
    const resolver = resolverFor({
      "sub.base.test": { MX: ["10 mx.host.test"] },
      "base.test": base,
      "mx.host.test": HOST,
    });
    const routing = await lookupMailRouting("sub.base.test", "base.test", resolver, TEST_NAMES_ON);
    expect(routing.status).toBe("mx");
    expect(routing.nameServers).toEqual(nameServers);
  });
});
