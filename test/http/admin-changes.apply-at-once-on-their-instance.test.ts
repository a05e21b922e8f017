/**
 * An operator who corrects an answer through the admin API sees the correction at once
 * on the instance that took the change (docs/api.md "Administration"): an override set or removed
 * there is in its very next check, and a record purged there is looked up afresh by
 * the next check, although that instance remembers every record it read or saved for
 * 30 s and reloads its overrides every 30 s. (Other instances take both within 30 s:
 * test/service/overrides.a-check-racing-….) Over the wire (loopback DNS) through the
 * real checker and app on a real SQLite store; the test's clock stands still, so
 * nothing here is a reload that came due.
 */
import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disposableWorld, disposableWorldLists } from "../../harness/disposable-world.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { type LiveService, openLiveService } from "../../harness/live-service.js";
import { Zones } from "../../harness/zones.js";

const TOKEN = "t".repeat(40);
const NOW = new Date("2026-03-01T00:00:00Z");
const world = disposableWorld({ services: 2, legitimate: 20, strays: 0 });
const ownServers = [...world.legitimate].filter(([, setup]) => setup === "own-server").map(([d]) => d);
if (ownServers.length < 2) throw new Error("the world has too few domains on their own servers");
const [customer, shop] = ownServers as [string, string];

let dns: DnsTestServer;
let service: LiveService;

beforeAll(async () => {
  dns = await startDnsServer(new Zones(world.fixture));
  service = await openLiveService({
    dnsAddress: dns.address,
    clock: () => NOW,
    lists: disposableWorldLists(world),
    adminToken: TOKEN,
  });
});

afterAll(async () => {
  await service?.close();
  await dns?.close();
});

const admin = (options: InjectOptions) =>
  service.app.inject({ ...options, headers: { authorization: `Bearer ${TOKEN}` } });
const check = (domain: string) => service.check(domain);

const looksOkay = { block: false, text: "Looks okay" };
const denied = { block: true, text: "Blocked by the operator", reason: "Operator override" };

describe("a change made through the admin API", () => {
  it("takes an override into the instance's next check, set and removed", async () => {
    expect(await check(customer)).toMatchObject(looksOkay);
    const set = await admin({
      method: "POST",
      url: "/admin/overrides",
      payload: { kind: "domain", value: customer, action: "deny" },
    });
    expect(set.statusCode).toBe(201);
    expect(await check(customer)).toMatchObject(denied);

    const removed = await admin({
      method: "POST",
      url: "/admin/overrides/remove",
      payload: { kind: "domain", value: customer },
    });
    expect(removed.json()).toEqual({ removed: true });
    expect(await check(customer)).toMatchObject(looksOkay);
    await service.checker.drain();
  });

  it("makes the next check of a purged domain a fresh look-up, for named domains and for all", async () => {
    const lookups = () => dns.queries.count(shop);
    await check(shop);
    const first = lookups();
    expect(first).toBeGreaterThan(0);
    await check(shop);
    expect(lookups()).toBe(first); // answered from the record cache

    const purged = await admin({ method: "POST", url: "/admin/records/purge", payload: { domains: [shop] } });
    expect(purged.json()).toEqual({ purged: 1 });
    await check(shop);
    const second = lookups();
    expect(second).toBeGreaterThan(first);

    await admin({ method: "POST", url: "/admin/records/purge", payload: { all: true } });
    await check(shop);
    expect(lookups()).toBeGreaterThan(second);
    await service.checker.drain();
  });
});
