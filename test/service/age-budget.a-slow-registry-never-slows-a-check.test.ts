/**
 * Domain age never slows a check: the answer comes as soon as DNS has answered, plus
 * at most a small wait for the registries; an age that comes later is saved with the
 * record, its verdict decided again. A domain that does not exist is never sent to a
 * registry, and AGE_LOOKUP=off asks none. The whole service over loopback DNS, RDAP
 * and WHOIS servers, on a real SQLite store.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type LoopbackNetwork, startLoopbackNetwork } from "../../harness/loopback-network.js";
import type { RdapReply } from "../../harness/loopback-registries.js";
import { loadConfig } from "../../src/config.js";
import { parseInput } from "../../src/core/input.js";
import { AGE_WAIT_MS } from "../../src/service/age-budget.js";
import type { CheckResult } from "../../src/service/checker.js";
import { createChecker } from "../../src/service/create-checker.js";
import { openStore, type Store } from "../../src/store/index.js";

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
    config: loadConfig({ ...network.env, AGE_TIMEOUT_MS: "12000", ...env }),
    store,
  });
  return {
    checker,
    async check(input: string): Promise<CheckResult & { ms: number }> {
      const parsed = parseInput(input);
      if (!parsed.ok) throw new Error(input);
      const started = performance.now();
      const result = await checker.check(parsed.input);
      return { ...result, ms: performance.now() - started };
    },
  };
}

describe("domain age beside the check", () => {
  it("answers within the wait when the registry takes 10 s, without the age", async () => {
    const { check } = await service(() => registeredDaysAgo(3, 10_000));
    const dnsOnly = await check("gmail.com"); // warms the resolver canary and the lists
    expect(dnsOnly.record.valid).toBe(true);
    const slow = await check("fresh.test");
    expect(slow.ms).toBeLessThan(AGE_WAIT_MS + 100);
    expect(slow.record.domain_age_days).toBeNull();
    expect(network?.rdap.queries).toContain("fresh.test");
  });

  it("saves the age that comes after the answer, with the verdict decided again", async () => {
    const { checker, check } = await service(() => registeredDaysAgo(3, 600));
    const first = await check("fresh.test");
    expect(first.record.domain_age_days).toBeNull();
    await checker.drain();
    const stored = await store?.records.getRecord("fresh.test");
    expect(stored?.record.domain_age_days).toBe(3);
    expect(stored?.record.risk).toBeGreaterThan(first.record.risk);
    const again = await check("fresh.test");
    expect([again.cache, again.record.domain_age_days, again.record.risk]).toEqual([
      "hit",
      3,
      stored?.record.risk,
    ]);
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
