import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sampleCheck, sampleRecord, sampleVerdict } from "../../harness/sample-record.js";
import type { DomainCheck } from "../../src/core/check.js";
import type { ParsedInput } from "../../src/core/input.js";
import type { DomainLists } from "../../src/core/lists.js";
import type { CheckRecord } from "../../src/core/record.js";
import { loadDomainLists } from "../../src/data/domain-lists.js";
import type { LookupResult } from "../../src/service/age-budget.js";
import { CachingChecker, type CachingCheckerOptions } from "../../src/service/cached-checker.js";
import { Observer, recentSink } from "../../src/service/observer.js";
import { openStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/types.js";

const START = new Date("2026-01-10T12:00:00.000Z");
const TTL_SECONDS = 3600;

function domainInput(domain: string): ParsedInput {
  return { kind: "domain", domain, localPart: null };
}

/** A look-up that counts its calls and answers what the test queues (default: a good record). */
function scriptedLookup() {
  const calls: string[] = [];
  const answers: Partial<CheckRecord>[] = [];
  const running = { now: 0, most: 0 };
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  return {
    calls,
    answers,
    /** Look-ups running right now, and the most that ever ran at once. */
    running,
    /** Holds every look-up until `open()`. */
    hold() {
      gate = new Promise((resolve) => {
        release = resolve;
      });
    },
    open() {
      release?.();
      gate = undefined;
    },
    /** The engine's answer: the record, with the status its reason says. */
    lookup: async (domain: string): Promise<LookupResult> => {
      calls.push(domain);
      running.now += 1;
      running.most = Math.max(running.most, running.now);
      try {
        if (gate) await gate;
        return { check: sampleCheck({ domain, base_domain: domain, ...answers.shift() }) };
      } finally {
        running.now -= 1;
      }
    },
  };
}

describe("CachingChecker", () => {
  let lists: DomainLists;
  let store: Store;
  let now: Date;
  let script: ReturnType<typeof scriptedLookup>;
  let checker: CachingChecker;

  beforeAll(() => {
    lists = loadDomainLists();
  });

  /** A checker on the test's store, look-up and clock, with `options` on top. */
  function checkerWith(options: Partial<CachingCheckerOptions> = {}): CachingChecker {
    return new CachingChecker({
      records: store.records,
      lists,
      lookup: script.lookup,
      clock: () => now,
      ttlSeconds: TTL_SECONDS,
      ...options,
    });
  }
  beforeEach(async () => {
    store = await openStore({ dialect: "sqlite", path: ":memory:" });
    await store.migrate();
    now = START;
    script = scriptedLookup();
    checker = checkerWith({ observer: new Observer({ sinks: [recentSink(store.recent)] }) });
  });
  afterEach(async () => {
    await checker.drain();
    await store.close();
  });

  it("looks a missing domain up once for every concurrent caller, then answers from the cache", async () => {
    script.hold();
    const pending = Array.from({ length: 10 }, () => checker.check(domainInput("example.org")));
    await new Promise((resolve) => setImmediate(resolve));
    script.open();
    const results = await Promise.all(pending);
    expect(script.calls).toEqual(["example.org"]);
    expect(new Set(results.map((result) => result.cache))).toEqual(new Set(["miss"]));
    expect((await checker.check(domainInput("example.org"))).cache).toBe("hit");
    expect(script.calls).toHaveLength(1);
    expect((await store.records.getRecord("example.org"))?.record.domain).toBe("example.org");
  });

  it("serves a stale record at once while one background refresh replaces it", async () => {
    script.answers.push({ risk: 10 }, { risk: 40 });
    await checker.check(domainInput("example.org"));
    now = new Date(START.getTime() + (TTL_SECONDS + 1) * 1000);
    const stale = await Promise.all([1, 2, 3].map(() => checker.check(domainInput("example.org"))));
    expect(stale.map((result) => [result.cache, result.record.risk])).toEqual([
      ["stale", 10],
      ["stale", 10],
      ["stale", 10],
    ]);
    await checker.drain();
    expect(script.calls).toHaveLength(2);
    const fresh = await checker.check(domainInput("example.org"));
    expect([fresh.cache, fresh.record.risk]).toEqual(["hit", 40]);
  });

  it("keeps a good record when a refresh meets a temporary DNS failure, and does not retry at once", async () => {
    script.answers.push({ risk: 10 }, { risk: 50, reason: "DNS timeout" });
    await checker.check(domainInput("example.org"));
    now = new Date(START.getTime() + (TTL_SECONDS + 1) * 1000);
    await checker.check(domainInput("example.org"));
    await checker.drain();
    const after = await checker.check(domainInput("example.org"));
    await checker.drain();
    expect([after.cache, after.record.risk, after.record.reason]).toEqual(["stale", 10, "Business provider"]);
    expect(script.calls).toHaveLength(2);
  });

  it("keeps a record made during a temporary failure only briefly", async () => {
    script.answers.push({ reason: "DNS failure", risk: 50 }, { risk: 10 });
    expect((await checker.check(domainInput("example.org"))).record.reason).toBe("DNS failure");
    now = new Date(START.getTime() + 30_000);
    expect((await checker.check(domainInput("example.org"))).cache).toBe("hit");
    now = new Date(START.getTime() + 61_000);
    expect((await checker.check(domainInput("example.org"))).cache).toBe("stale");
    await checker.drain();
    expect((await checker.check(domainInput("example.org"))).record.risk).toBe(10);
  });

  it("adds the address's role to the shared domain record without storing it", async () => {
    const role = await checker.check({ kind: "email", domain: "example.org", localPart: "postmaster" });
    expect(role.record.is_role_based_email).toBe(true);
    const person = await checker.check({ kind: "email", domain: "example.org", localPart: "jane.doe" });
    expect(person.record.is_role_based_email).toBe(false);
    expect((await store.records.getRecord("example.org"))?.record.is_role_based_email).toBe(false);
  });

  it("answers a hot domain from memory and sees another instance's newer record within 30 s", async () => {
    await checker.check(domainInput("example.org"));
    const reads = { count: 0 };
    const getRecord = store.records.getRecord.bind(store.records);
    store.records.getRecord = (domain) => {
      reads.count += 1;
      return getRecord(domain);
    };
    await store.records.saveRecord(
      sampleRecord({ domain: "example.org", risk: 77 }),
      sampleVerdict(sampleRecord({ domain: "example.org", risk: 77 })),
      now,
    );
    now = new Date(START.getTime() + 29_000);
    expect((await checker.check(domainInput("example.org"))).record.risk).toBe(10);
    expect(reads.count).toBe(0);
    now = new Date(START.getTime() + 31_000);
    expect((await checker.check(domainInput("example.org"))).record.risk).toBe(77);
    expect(reads.count).toBe(1);
  });

  it("checks again a stored record that has no verdict beside it (saved before verdicts were kept)", async () => {
    await checker.check(domainInput("example.org"));
    await checker.drain();
    const getRecord = store.records.getRecord.bind(store.records);
    store.records.getRecord = async (domain) => {
      const stored = await getRecord(domain);
      return stored && { ...stored, verdict: null };
    };
    const fresh = checkerWith();
    expect((await fresh.check(domainInput("example.org"))).cache).toBe("miss");
    expect(script.calls).toEqual(["example.org", "example.org"]);
  });

  it.each(["NXDOMAIN", "Null MX", "No MX or A record", "MX host does not exist", "Reserved name"])(
    "keeps a takes-no-mail record (%s) fresh for NEGATIVE_TTL only, then looks it up again before answering",
    async (reason) => {
      const negative = checkerWith({ negativeTtlSeconds: 600 });
      script.answers.push({ valid: false, block: true, risk: 100, reason }, { risk: 10 });
      expect((await negative.check(domainInput("new.example"))).record.reason).toBe(reason);
      now = new Date(START.getTime() + 599_000);
      expect((await negative.check(domainInput("new.example"))).cache).toBe("hit");
      now = new Date(START.getTime() + 601_000);
      const registered = await negative.check(domainInput("new.example"));
      expect([registered.cache, registered.record.valid, registered.record.reason]).toEqual([
        "miss",
        true,
        "Business provider",
      ]);
    },
  );

  it("lists the checked domain as recently checked", async () => {
    await checker.check({ kind: "email", domain: "example.org", localPart: "jane.doe" });
    await checker.drain();
    expect((await store.recent.listRecent(10)).map((entry) => entry.domain)).toEqual(["example.org"]);
  });

  describe("with a budget of 8 look-ups", () => {
    const DOMAINS = Array.from({ length: 500 }, (_, i) => `domain${i}.example`);
    let budgeted: CachingChecker;

    beforeEach(async () => {
      budgeted = checkerWith({ lookupConcurrency: 8 });
      script.hold();
      const first = Promise.all(DOMAINS.map((domain) => budgeted.check(domainInput(domain))));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(script.running.now).toBe(8);
      expect(budgeted.load()).toMatchObject({ lookupsRunning: 8, lookupsWaiting: 492, refreshes: 0 });
      script.open();
      await first;
      expect(script.running.most).toBe(8);
      script.calls.length = 0;
      script.running.most = 0;
      now = new Date(START.getTime() + (TTL_SECONDS + 1) * 1000);
    });
    afterEach(() => budgeted.drain());

    it("answers every expired record at once and refreshes them in half the budget, not all at once", async () => {
      script.hold();
      const stale = await Promise.all(DOMAINS.map((domain) => budgeted.check(domainInput(domain))));
      expect(new Set(stale.map((result) => result.cache))).toEqual(new Set(["stale"]));
      expect(script.calls).toHaveLength(4);
      expect(budgeted.load()).toMatchObject({ lookupsRunning: 4, lookupsWaiting: 0, refreshes: 4 });
      script.open();
      await budgeted.drain();
      expect(script.running.most).toBe(4);
      expect(budgeted.load()).toMatchObject({ lookupsRunning: 0, lookupsWaiting: 0, refreshes: 0 });
    });

    it("lets a caller's look-up past the refreshes while they hold half the budget", async () => {
      script.hold();
      await Promise.all(DOMAINS.slice(0, 100).map((domain) => budgeted.check(domainInput(domain))));
      const missing = budgeted.check(domainInput("new.example"));
      await new Promise((resolve) => setImmediate(resolve));
      expect(script.calls).toContain("new.example");
      script.open();
      expect((await missing).cache).toBe("miss");
    });
  });

  it("looks an expired record up again before answering when stale answers are off (batch runs)", async () => {
    const batch = checkerWith({ serveStale: false });
    script.answers.push({ risk: 10 }, { risk: 40 });
    await batch.check(domainInput("example.org"));
    now = new Date(START.getTime() + (TTL_SECONDS + 1) * 1000);
    const again = await batch.check(domainInput("example.org"));
    expect([again.cache, again.record.risk]).toEqual(["miss", 40]);
    expect(script.calls).toHaveLength(2);
  });

  describe("when the operator's overrides change (learned-snapshot.ts raises the generation)", () => {
    /** A snapshot whose generation the test raises, as a reload that saw an override change does. */
    const snapshot = () => ({
      loaded: true,
      ready: Promise.resolve(),
      refreshIfOld: () => undefined,
      outdates: () => false,
      reload: async () => undefined,
      reloadAfterChange: async () => undefined,
      generation: 0,
    });

    it("forgets what it remembers and reads the store again", async () => {
      const learned = snapshot();
      const overridden = checkerWith({ learned });
      script.answers.push({ risk: 10 }, { risk: 70 });
      await overridden.check(domainInput("example.org"));
      // Another process purges the record for an override: memory still answers it.
      await store.records.purgeRecords(["example.org"]);
      expect((await overridden.check(domainInput("example.org"))).record.risk).toBe(10);
      learned.generation += 1;
      const after = await overridden.check(domainInput("example.org"));
      expect([after.cache, after.record.risk]).toEqual(["miss", 70]);
      expect(script.calls).toHaveLength(2);
      await overridden.drain();
    });

    it("looks a domain up once more when they changed during its look-up, and saves only that", async () => {
      const learned = snapshot();
      const overridden = checkerWith({ learned });
      script.answers.push({ risk: 10 }, { risk: 70 });
      script.hold();
      const pending = overridden.check(domainInput("example.org"));
      await new Promise((resolve) => setImmediate(resolve));
      learned.generation += 1;
      script.open();
      expect((await pending).record.risk).toBe(70);
      expect(script.calls).toEqual(["example.org", "example.org"]);
      expect((await store.records.getRecord("example.org"))?.record.risk).toBe(70);
      await overridden.drain();
    });

    it("drops an age that came after they changed", async () => {
      const learned = snapshot();
      let arrive: (check: DomainCheck) => void = () => undefined;
      const overridden = checkerWith({
        learned,
        lookup: async (domain) => ({
          check: sampleCheck({ domain, base_domain: domain, domain_age_days: null }),
          later: new Promise<DomainCheck>((resolve) => {
            arrive = resolve;
          }),
        }),
      });
      await overridden.check(domainInput("example.org"));
      learned.generation += 1;
      arrive(sampleCheck({ domain: "example.org", base_domain: "example.org", domain_age_days: 9000 }));
      await overridden.drain();
      expect((await store.records.getRecord("example.org"))?.record.domain_age_days).toBeNull();
    });
  });
});
