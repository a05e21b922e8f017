/**
 * A domain-age look-up never takes longer than its deadline: a slow registry, a silent
 * WHOIS fallback and look-ups queued behind a registry's four in flight all give up at
 * it. The bounds are written for a quiet machine and stretched by the machine's pace
 * (harness/machine-pace.ts); "at least the deadline" is a lower bound a loaded machine keeps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fixture,
  type LoopbackRdap,
  type LoopbackWhois,
  startRdapServer,
  startWhoisServer,
  writeBootstrap,
} from "../../harness/loopback-registries.js";
import { startPace } from "../../harness/machine-pace.js";
import { createDomainAgeLookup } from "../../src/service/checking/domain-age.js";

const DEADLINE_MS = 300;
const MARGIN_MS = 150;

let slowRdap: LoopbackRdap;
let busyRdap: LoopbackRdap;
let silentWhois: LoopbackWhois;
let bootstrapFile: string;

beforeAll(async () => {
  slowRdap = await startRdapServer(() => ({
    status: 200,
    body: fixture("rdap/registered.json"),
    delayMs: 5000,
  }));
  busyRdap = await startRdapServer(() => ({
    status: 200,
    body: fixture("rdap/registered.json"),
    delayMs: 100,
  }));
  silentWhois = await startWhoisServer(() => null);
  bootstrapFile = await writeBootstrap({ slowtest: slowRdap.baseUrl, busytest: busyRdap.baseUrl });
});

afterAll(async () => {
  await slowRdap.close();
  await busyRdap.close();
  await silentWhois.close();
});

/** The work's value, how long it took, and the bound "within the deadline and its margin" stretched by the machine's pace. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; bound: number }> {
  const pace = startPace();
  const start = performance.now();
  const value = await work();
  const ms = performance.now() - start;
  return { value, ms, bound: pace.bound(DEADLINE_MS + MARGIN_MS) };
}

describe("a domain-age look-up", () => {
  it("gives up on a slow registry at its deadline", async () => {
    const lookup = createDomainAgeLookup({ bootstrapFile, whoisServer: null, timeoutMs: DEADLINE_MS });
    const { value, ms, bound } = await timed(() => lookup.lookup("example.slowtest"));
    expect(value).toBeNull();
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 20);
    expect(ms).toBeLessThan(bound);
  });

  it("counts RDAP and a silent WHOIS fallback against one deadline", async () => {
    const lookup = createDomainAgeLookup({
      bootstrapFile,
      whoisServer: silentWhois.server,
      timeoutMs: DEADLINE_MS,
    });
    const rdapOnly = await timed(() => lookup.lookup("other.slowtest"));
    const whoisOnly = await timed(() => lookup.lookup("example.nordap"));
    expect([rdapOnly.value, whoisOnly.value]).toEqual([null, null]);
    expect(rdapOnly.ms).toBeLessThan(rdapOnly.bound);
    expect(whoisOnly.ms).toBeLessThan(whoisOnly.bound);
    expect(silentWhois.queries).toContain("example.nordap");
  });

  it("keeps at most 4 queries in flight per registry; the rest wait their turn", async () => {
    const lookup = createDomainAgeLookup({ bootstrapFile, whoisServer: null, timeoutMs: 3000 });
    const domains = Array.from({ length: 10 }, (_, i) => `d${i}.busytest`);
    const ages = await Promise.all(domains.map((domain) => lookup.lookup(domain)));
    expect(ages.every((age) => age?.source === "rdap")).toBe(true);
    expect(busyRdap.queries).toHaveLength(10);
    expect(busyRdap.peakInFlight).toBe(4);
  });

  it("answers null for queued look-ups whose deadline passes while they wait", async () => {
    const lookup = createDomainAgeLookup({ bootstrapFile, whoisServer: null, timeoutMs: DEADLINE_MS });
    const domains = Array.from({ length: 8 }, (_, i) => `q${i}.slowtest`);
    const { value, ms, bound } = await timed(() =>
      Promise.all(domains.map((domain) => lookup.lookup(domain))),
    );
    expect(value).toEqual(Array(8).fill(null));
    expect(ms).toBeLessThan(bound);
  });
});
