/**
 * When MX records name hosts but no host gets an address because the address look-ups
 * failed (timeout, SERVFAIL), where mail goes is unknown: a temporary DNS failure
 * (docs/api.md "The record" `valid`), not "MX unresolvable". NXDOMAIN and NODATA are answers:
 * when every host is NXDOMAIN no MX host exists (`mx_missing`, mail bounces); a host
 * that exists without an address leaves `mx` (the soft signal "MX unresolvable").
 */

import { describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { MemoryResolver } from "../../harness/memory-resolver.js";
import { type NameFixture, Zones } from "../../harness/zones.js";
import { lookupMailRouting, type RoutingStatus } from "../../src/core/mail-routing.js";

const DOMAIN = { MX: ["10 mx1.host.test", "20 mx2.host.test"] };

describe("MX hosts whose addresses cannot be looked up", () => {
  it.each<[string, NameFixture, NameFixture, RoutingStatus]>([
    ["both time out", { behaviour: "drop" }, { behaviour: "drop" }, "dns_timeout"],
    ["one SERVFAIL, one NXDOMAIN", { behaviour: "servfail" }, { behaviour: "nxdomain" }, "dns_failure"],
    ["A NODATA, AAAA SERVFAIL; NXDOMAIN", { behaviour: { AAAA: "servfail" } }, {}, "dns_failure"],
    ["one times out, one SERVFAILs", { behaviour: "drop" }, { behaviour: "servfail" }, "dns_timeout"],
    ["one times out, the other resolves", { behaviour: "drop" }, { A: ["192.0.2.2"] }, "mx"],
    ["both NXDOMAIN: no MX host exists", { behaviour: "nxdomain" }, { behaviour: "nxdomain" }, "mx_missing"],
    ["both left out of the zone: NXDOMAIN", {}, {}, "mx_missing"],
    ["one NXDOMAIN, one NODATA", { behaviour: "nxdomain" }, { NS: ["ns.host.test"] }, "mx"],
    ["A NXDOMAIN, AAAA NODATA (broken server); NXDOMAIN", { behaviour: { A: "nxdomain" } }, {}, "mx"],
    ["both NODATA: an answer", { NS: ["ns.host.test"] }, { NS: ["ns.host.test"] }, "mx"],
  ])("%s → %s", async (_what, mx1, mx2, status) => {
    const names: Record<string, NameFixture> = { "domain.test": DOMAIN };
    // An empty fixture leaves the name out: it does not exist.
    if (Object.keys(mx1).length > 0) names["mx1.host.test"] = mx1;
    if (Object.keys(mx2).length > 0) names["mx2.host.test"] = mx2;
    const resolver = new MemoryResolver(new Zones({ zones: ["test"], names }));
    const routing = await lookupMailRouting("domain.test", "domain.test", resolver, TEST_NAMES_ON);
    expect(routing.status).toBe(status);
    expect(routing.hosts.map(({ host, priority }) => [host, priority])).toEqual([
      ["mx1.host.test", 10],
      ["mx2.host.test", 20],
    ]);
  });
});
