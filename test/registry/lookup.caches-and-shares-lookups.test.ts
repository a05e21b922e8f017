import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  fixture,
  type LoopbackRdap,
  type LoopbackWhois,
  manualClock,
  startRdapServer,
  startWhoisServer,
  writeBootstrap,
} from "../../harness/loopback-registries.js";
import type { DomainAgeLookup } from "../../src/core/age.js";
import { createDomainAgeLookup } from "../../src/service/checking/domain-age.js";

const DAY_MS = 86_400_000;

let rdap: LoopbackRdap;
let whois: LoopbackWhois;
let bootstrapFile: string;
let time: ReturnType<typeof manualClock>;
let lookup: DomainAgeLookup;

beforeAll(async () => {
  rdap = await startRdapServer((domain) =>
    domain.startsWith("missing")
      ? { status: 404 }
      : { status: 200, body: fixture("rdap/registered.json"), delayMs: 100 },
  );
  whois = await startWhoisServer(() => fixture("whois/cnnic-registration-time.txt"));
  bootstrapFile = await writeBootstrap({ cachetest: rdap.baseUrl });
});

afterAll(async () => {
  await rdap.close();
  await whois.close();
});

beforeEach(() => {
  rdap.queries.length = 0;
  whois.queries.length = 0;
  time = manualClock("2026-11-22T12:00:00Z");
  lookup = createDomainAgeLookup({
    bootstrapFile,
    whoisServer: whois.server,
    timeoutMs: 3000,
    clock: time.clock,
  });
});

describe("domain-age caching", () => {
  it("keeps a found date for 30 days without asking again", async () => {
    const first = await lookup.lookup("found.cachetest");
    time.advance(29 * DAY_MS);
    expect(await lookup.lookup("found.cachetest")).toEqual(first);
    expect(rdap.queries).toEqual(["found.cachetest"]);

    time.advance(2 * DAY_MS);
    expect(await lookup.lookup("found.cachetest")).toEqual(first);
    expect(rdap.queries).toEqual(["found.cachetest", "found.cachetest"]);
  });

  it("keeps an unknown age for 10 minutes without asking again", async () => {
    expect(await lookup.lookup("missing.cachetest")).toBeNull();
    time.advance(9 * 60_000);
    expect(await lookup.lookup("missing.cachetest")).toBeNull();
    expect(rdap.queries).toEqual(["missing.cachetest"]);

    time.advance(2 * 60_000);
    expect(await lookup.lookup("missing.cachetest")).toBeNull();
    expect(rdap.queries).toEqual(["missing.cachetest", "missing.cachetest"]);
  });

  it("caches WHOIS answers too", async () => {
    const first = await lookup.lookup("example.nordap");
    expect(first?.source).toBe("whois");
    expect(await lookup.lookup("example.nordap")).toEqual(first);
    expect(whois.queries).toEqual(["example.nordap"]);
  });

  it("treats a base domain's case and trailing dot as the same domain", async () => {
    await lookup.lookup("found.cachetest");
    await lookup.lookup("FOUND.cachetest.");
    expect(rdap.queries).toEqual(["found.cachetest"]);
  });
});

describe("concurrent look-ups of one domain", () => {
  it("share one query", async () => {
    const ages = await Promise.all([1, 2, 3, 4, 5].map(() => lookup.lookup("shared.cachetest")));
    expect(new Set(ages.map((age) => age?.createdAt.toISOString()))).toEqual(
      new Set(["1995-08-14T04:00:00.000Z"]),
    );
    expect(rdap.queries).toEqual(["shared.cachetest"]);
  });

  it("share one unknown answer too, and it is cached", async () => {
    const ages = await Promise.all([1, 2, 3].map(() => lookup.lookup("missing-shared.cachetest")));
    expect(ages).toEqual([null, null, null]);
    await lookup.lookup("missing-shared.cachetest");
    expect(rdap.queries).toEqual(["missing-shared.cachetest"]);
  });
});
