/**
 * DNS faults over the wire, through the real service (createChecker + buildApp, a real
 * SQLite store, DNS to a loopback server): silence, SERVFAIL, REFUSED, a truncated
 * answer TCP never completes, garbage bytes, and the server gone mid-run. Each check
 * answers 200 with `DNS timeout` or `DNS failure` (valid, never NXDOMAIN, never a 5xx),
 * the failure is kept 60 s, /readyz reports an unreachable resolver, and once the server
 * is back the service recovers without a restart.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { addMailDomain, wholeTreeFixture, type ZoneNames } from "../../harness/mail-zones.js";
import { type Behaviour, Zones } from "../../harness/zones.js";
import { loadConfig } from "../../src/config.js";
import { buildApp } from "../../src/http/app.js";
import type { Checker } from "../../src/service/checker.js";
import { CANARY_DOMAINS, createChecker } from "../../src/service/create-checker.js";
import { openStore, type Store } from "../../src/store/index.js";

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

let dir: string;
let dns: DnsTestServer;
let store: Store;
let checker: Checker;
let app: FastifyInstance;
let secret: string;
let now = new Date("2025-06-01T00:00:00Z");
const clock = () => now;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-dns-faults-"));
  dns = await startDnsServer(zones());
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: "500",
    AGE_LOOKUP: "off",
  });
  store = await openStore(config.database);
  await store.migrate();
  await store.plans.createPlan({ name: "tests", quota: 1000, periodDays: 30 });
  secret = (await store.keys.createKey({ plan: "tests", now })).secret;
  checker = createChecker({ config, store, clock });
  app = await buildApp({ store, checker, logger: false, clock });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await checker.drain();
  await store.close();
  await dns.close();
  await rm(dir, { recursive: true, force: true });
});

async function check(domain: string) {
  const response = await app.inject({
    method: "POST",
    url: "/v2/",
    headers: { authorization: `Bearer ${secret}` },
    payload: { domain },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { valid: boolean; block: boolean; reason: string; mx_host: string };
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
    await checker.resolverHealth?.probe(); // the start's probe may have met a busy machine
    const ready = await app.inject({ url: "/readyz" });
    expect(ready.statusCode, ready.body).toBe(200);

    const { port } = dns;
    await dns.close();
    const during = await check("shop-during.com");
    expect([during.valid, during.reason]).toEqual([true, expect.stringMatching(/^DNS (timeout|failure)$/)]);
    await checker.resolverHealth?.probe();
    const notReady = await app.inject({ url: "/readyz" });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toMatchObject({ code: "dns_unavailable" });
    // A record that was good stays good while DNS is down.
    expect((await check("shop-before.com")).reason).not.toMatch(/^DNS /);

    dns = await startDnsServer(zones(), { port });
    await checker.resolverHealth?.probe();
    expect((await app.inject({ url: "/readyz" })).statusCode).toBe(200);
    // A domain not checked during the outage answers at once; the failed one is kept 60 s.
    expect((await check("shop-after.com")).reason).not.toMatch(/^DNS /);
    expect((await check("shop-during.com")).reason).toBe(during.reason);
    now = new Date(now.getTime() + 61_000);
    // Expired: answered stale once while one background refresh runs, then the fresh record.
    await check("shop-during.com");
    await checker.drain();
    const recovered = await check("shop-during.com");
    expect([recovered.valid, recovered.reason]).toEqual([true, expect.not.stringMatching(/^DNS /)]);
    expect(recovered.mx_host).toBe("mail.shop-during.com");
  });
});
