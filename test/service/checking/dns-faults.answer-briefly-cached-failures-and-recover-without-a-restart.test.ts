/**
 * DNS faults over the wire, through the real service (createChecker + buildApp, a real
 * SQLite store, DNS to a loopback server): silence, SERVFAIL, REFUSED, a truncated
 * answer TCP never completes, garbage bytes, and the server gone mid-run. Each check
 * answers 200 with `DNS timeout` or `DNS failure` (valid, never NXDOMAIN, never a 5xx),
 * the failure is kept 60 s, /readyz reports an unreachable resolver, and once the server
 * is back the service recovers without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { type LiveService, openLiveService } from "../../../harness/live-service.js";
import { addMailDomain, wholeTreeFixture, type ZoneNames } from "../../../harness/mail-zones.js";
import { type Behaviour, Zones } from "../../../harness/zones.js";
import { CANARY_DOMAINS } from "../../../src/service/checking/create-checker.js";

const FAULTS: Record<Exclude<Behaviour, "nxdomain">, readonly string[]> = {
  drop: ["DNS timeout"],
  servfail: ["DNS failure"],
  refused: ["DNS failure"],
  truncated: ["DNS failure", "DNS timeout"],
  garbage: ["DNS failure", "DNS timeout"],
};
const WORKING = ["shop-before.com", "shop-during.com", "shop-after.com"];

function zones(): Zones {
  const names: ZoneNames = {};
  for (const domain of [...CANARY_DOMAINS, ...WORKING]) addMailDomain(names, domain, "own-server");
  for (const behaviour of Object.keys(FAULTS))
    names[`${behaviour}-shop.com`] = { behaviour: behaviour as Behaviour };
  return new Zones(wholeTreeFixture(names));
}

let dns: DnsTestServer;
let service: LiveService;
let now = new Date("2025-06-01T00:00:00Z");

beforeAll(async () => {
  dns = await startDnsServer(zones());
  service = await openLiveService({ dnsAddress: dns.address, dnsTimeoutMs: 500, clock: () => now });
});
afterAll(async () => {
  await service.close();
  await dns.close();
});

async function check(domain: string) {
  return (await service.check(domain)) as { valid: boolean; block: boolean; reason: string; mx_host: string };
}

describe("DNS faults over the wire", () => {
  it.each(Object.entries(FAULTS))(
    "%s: 200, valid, a DNS timeout or failure, never NXDOMAIN",
    async (behaviour, reasons) => {
      const record = await check(`${behaviour}-shop.com`);
      expect(record.valid).toBe(true);
      expect(reasons).toContain(record.reason);
      expect(record.reason).not.toBe("NXDOMAIN");
    },
  );

  it("a server gone mid-run: failures, /readyz 503, and recovery without a restart once it is back", async () => {
    expect((await check("shop-before.com")).reason).not.toMatch(/^DNS /);
    await service.checker.resolverHealth?.probe(); // the start's probe may have met a busy machine
    const ready = await service.app.inject({ url: "/readyz" });
    expect(ready.statusCode, ready.body).toBe(200);

    const { port } = dns;
    await dns.close();
    const during = await check("shop-during.com");
    expect([during.valid, during.reason]).toEqual([true, expect.stringMatching(/^DNS (timeout|failure)$/)]);
    await service.checker.resolverHealth?.probe();
    const notReady = await service.app.inject({ url: "/readyz" });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toMatchObject({ code: "dns_unavailable" });
    // A record that was good stays good while DNS is down.
    expect((await check("shop-before.com")).reason).not.toMatch(/^DNS /);

    dns = await startDnsServer(zones(), { port });
    await service.checker.resolverHealth?.probe();
    expect((await service.app.inject({ url: "/readyz" })).statusCode).toBe(200);
    // A domain not checked during the outage answers at once; the failed one is kept 60 s.
    expect((await check("shop-after.com")).reason).not.toMatch(/^DNS /);
    expect((await check("shop-during.com")).reason).toBe(during.reason);
    now = new Date(now.getTime() + 61_000);
    // Expired: answered stale once while one background refresh runs, then the fresh record.
    await check("shop-during.com");
    await service.checker.drain();
    const recovered = await check("shop-during.com");
    expect([recovered.valid, recovered.reason]).toEqual([true, expect.not.stringMatching(/^DNS /)]);
    expect(recovered.mx_host).toBe("mail.shop-during.com");
  });
});
