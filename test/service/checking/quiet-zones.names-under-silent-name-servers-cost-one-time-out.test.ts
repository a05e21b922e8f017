/**
 * Name servers that never answer, remembered briefly: 300 names under one silent
 * name-server set, or under one silent registrable domain, checked at once through the
 * real checker over the loopback DNS server, cost about one DNS deadline, and only the
 * first budget's worth of them is ever asked for MX. The memory is keyed by registrable
 * domain and by name-server set, forgets after 60 s, and leaves answering zones alone.
 * The deadline and the bound on time are written for a quiet machine and stretched by the
 * machine's pace (harness/machine-pace.ts).
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../../harness/config.js";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { startPace } from "../../../harness/machine-pace.js";
import { MemoryResolver } from "../../../harness/memory-resolver.js";
import { type NameFixture, Zones } from "../../../harness/zones.js";
import { loadConfig } from "../../../src/config.js";
import type { CachingChecker } from "../../../src/service/checking/cached-checker.js";
import { createChecker } from "../../../src/service/checking/create-checker.js";
import { QuietZones } from "../../../src/service/checking/quiet-zones.js";
import type { Store } from "../../../src/store/index.js";
import { openStore } from "../../../src/store/index.js";

/** The machine's pace when the file starts. */
const pace = startPace();
/** The DNS deadline on a quiet machine. */
const TIMEOUT_MS = 400;
const SILENT_NS = ["ns1.silent-dns.net", "ns2.silent-dns.net"];
const SILENT = { MX: "drop", A: "drop", AAAA: "drop" } as const;
const UNDER_SILENT_NS = Array.from({ length: 300 }, (_, i) => `shop-${i}.com`);
const UNDER_SILENT_ZONE = Array.from({ length: 300 }, (_, i) => `w${i}.silent-zone.com`);

function world(): Zones {
  const names: Record<string, NameFixture> = {
    "silent-zone.com": { behaviour: "drop" },
    "answering.com": { MX: ["10 mx.answering.com"], NS: ["ns1.answering.net"] },
    "mx.answering.com": { A: ["192.0.2.10"] },
  };
  for (const domain of UNDER_SILENT_NS) names[domain] = { NS: SILENT_NS, behaviour: SILENT };
  for (const domain of UNDER_SILENT_ZONE) names[domain] = { behaviour: "drop" };
  return new Zones({ zones: ["com", "net"], names });
}

/** How many of the names were asked for MX at least once. */
function askedForMx(dns: DnsTestServer, names: readonly string[]): number {
  return names.filter((name) => dns.queries.count(name, { type: "MX" }) > 0).length;
}

describe("a flood of names under silent name servers, through the checker", () => {
  let dns: DnsTestServer;
  let store: Store;
  let checker: CachingChecker;

  beforeAll(async () => {
    dns = await startDnsServer(world());
    store = await openStore({ dialect: "sqlite", path: ":memory:" });
    await store.migrate();
    const config = loadConfig({
      TEST_NAMES: "on",
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: String(Math.ceil(TIMEOUT_MS * pace.atStart)),
      AGE_LOOKUP: "off",
      LIST_SOURCES: "off",
      DATABASE_URL: "sqlite::memory:",
    });
    checker = createChecker({ config, store });
  });
  afterAll(async () => {
    await checker.drain();
    await store.close();
    await dns.close();
  });

  /** Checks every name at once from one page visitor: the seconds it took and the answers. */
  async function flood(names: readonly string[]) {
    const started = performance.now();
    const results = await Promise.all(
      names.map((domain) =>
        checker.check({ kind: "domain", domain, localPart: null }, { budget: "pages", client: "127.0.0.2" }),
      ),
    );
    return { ms: performance.now() - started, results };
  }

  it.each([
    ["one name-server set", UNDER_SILENT_NS],
    ["one registrable domain", UNDER_SILENT_ZONE],
  ])("300 names under %s cost about one time-out", async (_, names) => {
    const { ms, results } = await flood(names);
    // The pages' budget is 16, one visitor's share 8: only the first 8 reach the wire.
    expect(askedForMx(dns, names)).toBeLessThanOrEqual(8);
    expect(ms).toBeLessThan(pace.bound(3 * TIMEOUT_MS));
    expect(new Set(results.map(({ record }) => `${record.reason} ${record.mx_info}`)).size).toBe(1);
    expect(results[0]?.record).toMatchObject({ mx_host: "", reason: "DNS timeout" });
  });

  it("still answers a zone whose servers answer", async () => {
    const { record } = await checker.check(
      { kind: "domain", domain: "answering.com", localPart: null },
      { budget: "pages", client: "127.0.0.2" },
    );
    expect(record.mx_host).toBe("mx.answering.com");
  });
});

describe("QuietZones", () => {
  const zones = new Zones({
    zones: ["com", "net"],
    names: {
      "silent-a.com": { NS: SILENT_NS, behaviour: SILENT },
      "silent-b.com": { NS: SILENT_NS, behaviour: SILENT },
      "silent-c.com": { NS: SILENT_NS, behaviour: SILENT },
      "other.com": { NS: ["ns1.other.net"], behaviour: SILENT },
    },
  });

  it("keys by registrable domain and name-server set, and forgets after 60 s", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const quiet = new QuietZones({ clock: () => new Date(now) });
    const resolver = new MemoryResolver(zones);
    expect((await quiet.lookupRouting("silent-a.com", resolver, TEST_NAMES_ON)).status).toBe("dns_timeout");
    expect(resolver.queries.count("silent-a.com", { type: "MX" })).toBe(1);
    // Another domain on the same silent servers: its NS asked, nothing else.
    expect(await quiet.lookupRouting("silent-b.com", resolver, TEST_NAMES_ON)).toEqual({
      status: "dns_timeout",
      hosts: [],
      nameServers: SILENT_NS,
      addresses: [],
    });
    expect(resolver.queries.count("silent-b.com", { type: "NS" })).toBe(1);
    expect(resolver.queries.count("silent-b.com", { type: "MX" })).toBe(0);
    // A name under a quiet registrable domain: no query at all.
    await quiet.lookupRouting("www.silent-b.com", resolver, TEST_NAMES_ON);
    expect(resolver.queries.count("www.silent-b.com")).toBe(0);
    // Other name servers are asked in full.
    await quiet.lookupRouting("other.com", resolver, TEST_NAMES_ON);
    expect(resolver.queries.count("other.com", { type: "MX" })).toBe(1);
    // 60 s later everything is asked again.
    now += 60_001;
    await quiet.lookupRouting("silent-a.com", resolver, TEST_NAMES_ON);
    expect(resolver.queries.count("silent-a.com", { type: "MX" })).toBe(2);
  });
});
