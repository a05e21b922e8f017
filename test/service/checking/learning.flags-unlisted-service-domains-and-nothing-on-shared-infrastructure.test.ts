/**
 * Learning disposable infrastructure from traffic, over the wire through the real service
 * (createChecker, a real SQLite store, DNS from a loopback server) on the generated world
 * of harness/disposable-world.ts: before any traffic no unlisted service domain is
 * flagged; after one pass, every unlisted domain of a service whose listed domains were
 * seen at least three times over is `Heuristics xN` naming a listed domain of that
 * service, also where pass one cached it as "Looks okay"; nothing on shared
 * infrastructure (Google, Microsoft, the big host, small hosts, registrar name servers)
 * is flagged; an operator's never-disposable mark and domain overrides take effect.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../../harness/config.js";
import {
  type DisposableWorld,
  disposableWorld,
  disposableWorldLists,
} from "../../../harness/disposable-world.js";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { API_LANE, liveChecker } from "../../../harness/live-service.js";
import { Zones } from "../../../harness/zones.js";
import { loadConfig } from "../../../src/config.js";
import { parseDomain } from "../../../src/core/input.js";
import type { CheckRecord } from "../../../src/core/record.js";
import { applyOverride } from "../../../src/service/checking/apply-override.js";
import type { Checker } from "../../../src/service/checking/checker.js";
import { openStore, type Store } from "../../../src/store/index.js";

let dir: string;
let dns: DnsTestServer;
let store: Store;
let world: DisposableWorld;
let now = new Date("2025-06-01T00:00:00Z");
const clock = () => now;

function newChecker(): Checker {
  return liveChecker(store, { dnsAddress: dns.address, clock, lists: disposableWorldLists(world) });
}

async function pass(checker: Checker, domains: readonly string[]): Promise<Map<string, CheckRecord>> {
  const records = new Map<string, CheckRecord>();
  for (let start = 0; start < domains.length; start += 64) {
    await Promise.all(
      domains.slice(start, start + 64).map(async (domain) => {
        const parsed = parseDomain(domain, TEST_NAMES_ON);
        if (!parsed.ok) throw new Error(domain);
        records.set(domain, (await checker.check(parsed.input, API_LANE)).record);
      }),
    );
  }
  return records;
}

let before: Map<string, CheckRecord>;
let after: Map<string, CheckRecord>;
let checker: Checker;

beforeAll(async () => {
  world = disposableWorld();
  dir = await mkdtemp(join(tmpdir(), "mailrisk-learning-"));
  dns = await startDnsServer(new Zones(world.fixture));
  const config = loadConfig({ TEST_NAMES: "on", DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}` });
  store = await openStore(config.database);
  await store.migrate();
  checker = newChecker();
  before = await pass(checker, world.traffic);
  now = new Date(now.getTime() + 60_000);
  await checker.drain(); // evidence written, snapshot reloaded
  after = await pass(checker, world.traffic);
}, 120_000);

afterAll(async () => {
  await checker?.drain();
  await store?.close();
  await dns?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("learning disposable infrastructure from one pass of traffic", () => {
  it("flags no unlisted service domain before the traffic", () => {
    for (const domain of world.unlisted) expect(before.get(domain)?.is_disposable, domain).toBe(false);
  });

  it("flags every unlisted domain of a service once three of its listed domains were seen", () => {
    let learnt = 0;
    for (const service of world.services) {
      if (service.listed.length < 3) continue;
      for (const domain of service.unlisted) {
        const record = after.get(domain) as CheckRecord;
        expect(record.reason, domain).toMatch(/^Heuristics x[23]$/);
        expect(record.block).toBe(true);
        expect(service.listed).toContain(record.disposable_provider);
        expect(record.block_status_changed_at).not.toBe(before.get(domain)?.block_status_changed_at);
        learnt++;
      }
    }
    expect(learnt).toBeGreaterThan(world.unlisted.length * 0.8);
  });

  it("flags nothing on shared infrastructure", () => {
    for (const [domain, setup] of world.legitimate) {
      const record = after.get(domain) as CheckRecord;
      expect({ domain, setup, block: record.block, disposable: record.is_disposable }).toEqual({
        domain,
        setup,
        block: false,
        disposable: false,
      });
    }
    for (const domain of world.strays) expect(after.get(domain)?.reason).toBe("Disposable");
  });

  it("lists what was learnt with its evidence, and never name servers alone", async () => {
    const learnt = await store.infrastructure.listInfrastructure(3);
    const hosts = learnt.filter((s) => s.kind === "mx_host" && s.good === 0);
    expect(hosts.length).toBeGreaterThan(0);
    expect(learnt.find((s) => s.value === "mx.bighost.net")?.good ?? 1).toBeGreaterThan(0);
    expect(learnt.some((s) => s.value.endsWith("google.com"))).toBe(false);
  });

  it("obeys the operator: never disposable infrastructure, allowed and denied domains", async () => {
    const service = world.services.find((s) => s.listed.length >= 3 && s.unlisted.length >= 2);
    if (!service) throw new Error("no service to test with");
    const [allowed, other] = service.unlisted as [string, string];
    const legit = [...world.legitimate.keys()][0] as string;
    const at = now;
    for (const override of [
      { kind: "mx_host", value: `mx1.${service.name}`, action: "never_disposable" },
      { kind: "mx_host", value: `mx2.${service.name}`, action: "never_disposable" },
      { kind: "mx_ip", value: `198.19.${world.services.indexOf(service)}.1`, action: "never_disposable" },
      { kind: "mx_ip", value: `198.19.${world.services.indexOf(service)}.2`, action: "never_disposable" },
      { kind: "domain", value: allowed, action: "allow" },
      { kind: "domain", value: legit, action: "deny" },
    ] as const) {
      await applyOverride(store, { ...override, note: null, createdAt: at });
    }
    const fresh = newChecker();
    const records = await pass(fresh, [allowed, other, legit, service.listed[0] as string]);
    expect(records.get(allowed)).toMatchObject({
      block: false,
      text: "Looks okay",
      reason: "Operator override",
    });
    expect(records.get(other)?.is_disposable).toBe(false);
    expect(records.get(legit)).toMatchObject({
      block: true,
      text: "Blocked by the operator",
      reason: "Operator override",
    });
    expect(records.get(service.listed[0] as string)?.reason).toBe("Disposable");
    await fresh.drain();
  });
});
