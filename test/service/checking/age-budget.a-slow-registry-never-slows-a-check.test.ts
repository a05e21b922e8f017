/**
 * Domain age never slows a check: the answer comes as soon as DNS has answered, plus
 * at most a small wait for the registries; an age that comes later is saved with the
 * domain's facts, and the next answer is decided with it. A domain that does not exist
 * is never sent to a registry, and AGE_LOOKUP=off asks none. `lookupWithinAgeBudget`
 * alone over an in-memory resolver; then the whole service over loopback DNS, RDAP and
 * WHOIS servers, on a real SQLite store. The bounds on time are written for a quiet
 * machine and stretched by the machine's pace (harness/machine-pace.ts).
 */

import { afterEach, describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../../harness/config.js";
import { type LoopbackNetwork, startLoopbackNetwork } from "../../../harness/loopback-network.js";
import type { RdapReply } from "../../../harness/loopback-registries.js";
import { startPace } from "../../../harness/machine-pace.js";
import { MemoryResolver } from "../../../harness/memory-resolver.js";
import { Zones } from "../../../harness/zones.js";
import { loadConfig } from "../../../src/config.js";
import type { DomainAge, DomainAgeLookup } from "../../../src/core/age.js";
import { parseInput } from "../../../src/core/input.js";
import { AGE_WAIT_MS, lookupWithinAgeBudget } from "../../../src/service/checking/age-budget.js";
import type { CheckResult } from "../../../src/service/checking/checker.js";
import { createChecker } from "../../../src/service/checking/create-checker.js";
import { openStore, type Store } from "../../../src/store/index.js";

const DAY_MS = 86_400_000;

function registeredDaysAgo(days: number, delayMs = 0): RdapReply {
  const eventDate = new Date(Date.now() - days * DAY_MS).toISOString();
  return {
    status: 200,
    delayMs,
    body: JSON.stringify({ objectClassName: "domain", events: [{ eventAction: "registration", eventDate }] }),
  };
}

let network: LoopbackNetwork | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  await network?.close();
});

async function service(rdap: (domain: string) => RdapReply, env: Record<string, string> = {}) {
  network = await startLoopbackNetwork({ rdap });
  store = await openStore({ dialect: "sqlite", path: ":memory:" });
  await store.migrate();
  const checker = createChecker({
    config: loadConfig({
      ...network.env,
      // The network's DNS deadline, written for a quiet machine, stretched by the machine's pace.
      DNS_TIMEOUT_MS: String(Math.ceil(startPace().bound(Number(network.env.DNS_TIMEOUT_MS)))),
      AGE_TIMEOUT_MS: "12000",
      ...env,
    }),
    store,
  });
  return {
    checker,
    async check(input: string): Promise<CheckResult & { ms: number }> {
      const parsed = parseInput(input, TEST_NAMES_ON);
      if (!parsed.ok) throw new Error(input);
      const started = performance.now();
      const result = await checker.check(parsed.input);
      return { ...result, ms: performance.now() - started };
    },
  };
}

const resolver = () =>
  new MemoryResolver(
    new Zones({
      zones: ["test"],
      names: {
        "shop.test": { MX: ["10 mx.shop.test"], NS: ["ns1.shop.test"] },
        "www.shop.test": { MX: ["10 mx.shop.test"] },
        "mx.shop.test": { A: ["192.0.2.25"] },
      },
    }),
  );

/** A registry that answers `createdAt` after `delayMs` (null: it knows no date), counting what it was asked. */
function registry(createdAt: Date | null, delayMs: number) {
  const asked: string[] = [];
  const lookup: DomainAgeLookup = {
    async lookup(baseDomain) {
      asked.push(baseDomain);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return createdAt && ({ createdAt, source: "rdap" } satisfies DomainAge);
    },
  };
  return { asked, lookup };
}

describe("lookupWithinAgeBudget", () => {
  const CREATED = new Date("2026-02-01T00:00:00Z");

  it("gives the facts with the age of the base domain that came within the wait", async () => {
    const { asked, lookup } = registry(CREATED, 5);
    const result = await lookupWithinAgeBudget("www.shop.test", resolver(), TEST_NAMES_ON, lookup, 200);
    expect(result.facts).toMatchObject({ routing: { status: "mx" }, createdAt: CREATED });
    expect(result.later).toBeUndefined();
    expect(asked).toEqual(["shop.test"]);
  });

  it("gives the facts without the age at the end of the wait, then the same facts with it", async () => {
    const { lookup } = registry(CREATED, 300);
    const pace = startPace();
    const started = performance.now();
    const { facts, later } = await lookupWithinAgeBudget("shop.test", resolver(), TEST_NAMES_ON, lookup, 50);
    expect(performance.now() - started).toBeLessThan(pace.bound(250));
    expect(facts).toEqual({
      routing: {
        status: "mx",
        hosts: [{ host: "mx.shop.test", priority: 10, ips: ["192.0.2.25"] }],
        nameServers: ["ns1.shop.test"],
        addresses: [],
      },
      createdAt: null,
    });
    expect(await later).toEqual({ routing: facts.routing, createdAt: CREATED });
  });

  it("gives null later when the registry that answered late knew no date", async () => {
    const { lookup } = registry(null, 100);
    const { facts, later } = await lookupWithinAgeBudget("shop.test", resolver(), TEST_NAMES_ON, lookup, 10);
    expect(facts.createdAt).toBeNull();
    expect(await later).toBeNull();
  });

  it("asks no registry for a domain that does not exist, a reserved name, or with no age look-up", async () => {
    const { asked, lookup } = registry(CREATED, 0);
    const gone = await lookupWithinAgeBudget("gone.test", resolver(), TEST_NAMES_ON, lookup, 200);
    expect([gone.facts, gone.later]).toEqual([
      {
        routing: { status: "nxdomain", hosts: [], nameServers: expect.anything(), addresses: [] },
        createdAt: null,
      },
      undefined,
    ]);
    const reserved = await lookupWithinAgeBudget("shop.example.com", resolver(), TEST_NAMES_ON, lookup, 200);
    expect([reserved.facts.createdAt, reserved.later]).toEqual([null, undefined]);
    expect(asked).toEqual([]);
    const off = await lookupWithinAgeBudget("shop.test", resolver(), TEST_NAMES_ON, null, 200);
    expect([off.facts.routing.status, off.facts.createdAt, off.later]).toEqual(["mx", null, undefined]);
  });
});

describe("domain age beside the check", () => {
  it("answers within the wait when the registry takes 10 s, without the age", async () => {
    const { check } = await service(() => registeredDaysAgo(3, 10_000));
    const dnsOnly = await check("gmail.com"); // warms the resolver canary and the lists
    expect(dnsOnly.record.valid).toBe(true);
    const pace = startPace();
    const slow = await check("fresh.test");
    expect(slow.ms).toBeLessThan(pace.bound(AGE_WAIT_MS + 100));
    expect(slow.record.domain_age_days).toBeNull();
    expect(network?.rdap.queries).toContain("fresh.test");
  });

  it("saves the age that comes after the answer, with the verdict decided again", async () => {
    const { checker, check } = await service(() => registeredDaysAgo(3, 600));
    const first = await check("fresh.test");
    expect(first.record.domain_age_days).toBeNull();
    await checker.drain();
    const stored = await store?.records.getFacts("fresh.test");
    const days = (Date.now() - (stored?.facts.createdAt?.getTime() ?? 0)) / DAY_MS;
    expect(days).toBeGreaterThanOrEqual(3);
    expect(days).toBeLessThan(3.1);
    const again = await check("fresh.test");
    expect([again.cache, again.record.domain_age_days]).toEqual(["hit", 3]);
    expect(again.record.risk).toBeGreaterThan(first.record.risk);
    expect(again.record.reason).toBe("Domain age < 7 days");
  });

  it("waits for an age that comes within the wait", async () => {
    const { check } = await service(() => registeredDaysAgo(20, 20));
    expect((await check("month-old.test")).record.domain_age_days).toBe(20);
  });

  it("sends no domain that does not exist to a registry", async () => {
    const { checker, check } = await service(() => registeredDaysAgo(3));
    expect((await check("does-not-exist.test")).record.reason).toBe("NXDOMAIN");
    await checker.drain();
    expect(network?.rdap.queries).toEqual([]);
  });

  it("asks no registry with AGE_LOOKUP=off", async () => {
    const { checker, check } = await service(() => registeredDaysAgo(3), { AGE_LOOKUP: "off" });
    expect((await check("fresh.test")).record.domain_age_days).toBeNull();
    await checker.drain();
    expect([network?.rdap.queries, network?.whois.queries]).toEqual([[], []]);
  });
});
