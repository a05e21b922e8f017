/**
 * The record cache over a scripted look-up of facts, on a real SQLite store and the
 * test's clock: one look-up for concurrent callers; stale facts answered while one
 * refresh runs (within half the look-up budget); facts saying the domain takes no mail
 * never answered stale; a temporary DNS failure kept 60 s and never replacing good
 * facts; every answer decided from the stored facts with the sources in force, kept
 * while their version stands; block_status_changed_at moved only when the answer to an
 * API caller flips block, also when an override flips it without a look-up.
 */

import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { configWith } from "../../../harness/config.js";
import { API_LANE as API } from "../../../harness/live-service.js";
import { mxFacts } from "../../../harness/sample-facts.js";
import type { DomainFacts } from "../../../src/core/check.js";
import type { ParsedInput } from "../../../src/core/input.js";
import type { DomainOverride } from "../../../src/core/learned.js";
import type { DomainLists } from "../../../src/core/list-interfaces.js";
import type { MailRouting } from "../../../src/core/mail-routing.js";
import { formatTimestamp } from "../../../src/core/record.js";
import { TypoIndex } from "../../../src/core/typo.js";
import { loadDomainLists } from "../../../src/data/read-domain-lists.js";
import type { LookupResult } from "../../../src/service/checking/age-budget.js";
import {
  type EvidenceObservation,
  Observer,
  recentSink,
} from "../../../src/service/checking/batched-observer.js";
import { CachingChecker, type CachingCheckerOptions } from "../../../src/service/checking/cached-checker.js";
import type { Store } from "../../../src/store/index.js";
import { openStore } from "../../../src/store/index.js";

/** The checker's settings from CONFIG_TABLE's defaults. */
const { pageLookupConcurrency, webhookWatchDays, testNames } = configWith();

const START = new Date("2026-01-10T12:00:00.000Z");
const TTL_SECONDS = 3600;
const DAY = 86_400_000;
/** A domain no list knows, on its own mail server. */
const DOMAIN = "acme-widgets.com";

function domainInput(domain: string): ParsedInput {
  return { kind: "domain", domain, localPart: null };
}

/** The test's clock `ms` since the start. */
function since(ms: number): Date {
  return new Date(START.getTime() + ms);
}

/** MX on the domain's own host, answered: self-hosted, risk 0, "Self-hosted". */
const working = (domain: string, createdAt: Date | null = null): DomainFacts =>
  mxFacts(domain, "192.0.2.1", createdAt);

/** MX records whose host has no address: "MX unresolvable", risk 40, not blocked. */
function unresolvable(domain: string): DomainFacts {
  return {
    routing: {
      status: "mx",
      hosts: [{ host: `mx.${domain}`, priority: 10, ips: [] }],
      nameServers: [`ns1.${domain}`],
      addresses: [],
    },
    createdAt: null,
  };
}

function routed(status: MailRouting["status"], hosts: MailRouting["hosts"] = []): DomainFacts {
  return { routing: { status, hosts, nameServers: [], addresses: [] }, createdAt: null };
}

const NXDOMAIN = routed("nxdomain");
const TIMED_OUT: DomainFacts = {
  routing: { status: "dns_timeout", hosts: [], nameServers: null, addresses: [] },
  createdAt: null,
};

/** A working domain whose name-server look-up failed: the facts miss what NS would have said. */
function withoutNameServers(domain: string): DomainFacts {
  const facts = working(domain);
  return { ...facts, routing: { ...facts.routing, nameServers: null } };
}

/** A working domain of which some other look-up failed (an MX host's addresses, the domain's AAAA). */
function incomplete(domain: string): DomainFacts {
  const facts = working(domain);
  return { ...facts, routing: { ...facts.routing, incomplete: true } };
}

/** A look-up that counts its calls and answers the facts the test queues (default: a working domain). */
function scriptedLookup() {
  const calls: string[] = [];
  const answers: DomainFacts[] = [];
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
    lookup: async (domain: string): Promise<LookupResult> => {
      calls.push(domain);
      running.now += 1;
      running.most = Math.max(running.most, running.now);
      try {
        if (gate) await gate;
        return { facts: answers.shift() ?? working(domain) };
      } finally {
        running.now -= 1;
      }
    },
  };
}

/**
 * What was learnt and the operator's overrides as the record cache sees them: the test
 * sets a domain's override (the version moves, as a reload that found it does) and
 * counts how often the verdict asked for one.
 */
function learnedStub() {
  const overrides = new Map<string, DomainOverride>();
  const stub = {
    loaded: true,
    ready: Promise.resolve(),
    version: 0,
    /** Calls of `domainOverride`: one per verdict decided. */
    asked: 0,
    refreshIfOld: () => undefined,
    reloadAfterChange: async () => undefined,
    disposableService: () => undefined,
    neverDisposable: () => false,
    domainOverride(domain: string, baseDomain: string): DomainOverride | undefined {
      stub.asked += 1;
      return overrides.get(domain) ?? overrides.get(baseDomain);
    },
    /** Sets (or with undefined removes) a domain's override, as a reload that found it. */
    override(domain: string, action: DomainOverride | undefined) {
      if (action) overrides.set(domain, action);
      else overrides.delete(domain);
      stub.version += 1;
    },
  };
  return stub;
}

describe("CachingChecker", () => {
  let lists: DomainLists;
  let typos: TypoIndex;
  let store: Store;
  let now: Date;
  let script: ReturnType<typeof scriptedLookup>;
  let checker: CachingChecker;
  const checkers: CachingChecker[] = [];

  beforeAll(() => {
    lists = loadDomainLists();
    typos = new TypoIndex(lists.popular);
  });

  /** A checker on the test's store, look-up and clock, with `options` on top. */
  function checkerWith(options: Partial<CachingCheckerOptions> = {}): CachingChecker {
    const made = new CachingChecker({
      records: store.records,
      lists,
      typos,
      lookup: script.lookup,
      clock: () => now,
      ttlSeconds: TTL_SECONDS,
      pageLookupConcurrency,
      webhookWatchDays,
      testNames,
      ...options,
    });
    checkers.push(made);
    return made;
  }
  beforeEach(async () => {
    store = await openStore({ dialect: "sqlite", path: ":memory:" });
    await store.migrate();
    now = START;
    script = scriptedLookup();
    checker = checkerWith({
      observer: new Observer({ sinks: [recentSink(store.recent, { fromApi: true })] }),
    });
  });
  afterEach(async () => {
    script.open();
    await Promise.all(checkers.splice(0).map((made) => made.drain()));
    await store.close();
  });

  it("looks a missing domain up once for every concurrent caller, then answers from the cache", async () => {
    script.hold();
    const pending = Array.from({ length: 10 }, () => checker.check(domainInput(DOMAIN)));
    await new Promise((resolve) => setImmediate(resolve));
    script.open();
    const results = await Promise.all(pending);
    expect(script.calls).toEqual([DOMAIN]);
    expect(new Set(results.map((result) => result.cache))).toEqual(new Set(["miss"]));
    expect(results[0]?.record).toMatchObject({ domain: DOMAIN, risk: 0, reason: "Self-hosted" });
    expect((await checker.check(domainInput(DOMAIN))).cache).toBe("hit");
    expect(script.calls).toHaveLength(1);
    expect(await store.records.getFacts(DOMAIN)).toEqual({
      facts: working(DOMAIN),
      checkedAt: START,
      block: false,
      changedAt: START,
    });
  });

  it("serves stale facts at once while one background refresh replaces them", async () => {
    script.answers.push(working(DOMAIN), unresolvable(DOMAIN));
    await checker.check(domainInput(DOMAIN));
    now = since((TTL_SECONDS + 1) * 1000);
    const stale = await Promise.all([1, 2, 3].map(() => checker.check(domainInput(DOMAIN))));
    expect(stale.map((result) => [result.cache, result.record.risk])).toEqual([
      ["stale", 0],
      ["stale", 0],
      ["stale", 0],
    ]);
    await checker.drain();
    expect(script.calls).toHaveLength(2);
    const fresh = await checker.check(domainInput(DOMAIN));
    expect([fresh.cache, fresh.record.risk, fresh.record.reason]).toEqual(["hit", 40, "MX unresolvable"]);
  });

  // A temporary failure shows in the routing (a DNS timeout), whatever the verdict
  // (a listed disposable domain's is decided by the list), or only in the verdict (a
  // mailbox provider's domain DNS calls non-existent is a DNS failure, not a fact), or
  // in a look-up beside a working MX (the name servers, an MX host's addresses).
  const failures: [string, string, DomainFacts, string][] = [
    ["in the routing and the verdict", DOMAIN, TIMED_OUT, "dns_timeout"],
    ["in the routing only", "mailinator.com", TIMED_OUT, "disposable"],
    ["in the verdict only", "gmail.com", NXDOMAIN, "dns_failure"],
    ["in the name servers only", DOMAIN, withoutNameServers(DOMAIN), "ok"],
    ["in another look-up only", "mailinator.com", incomplete("mailinator.com"), "disposable"],
  ];

  it.each(failures)(
    "keeps good facts when a refresh meets a temporary DNS failure (%s), and does not retry at once",
    async (_where, domain, failed) => {
      script.answers.push(working(domain), failed);
      const good = await checker.check(domainInput(domain));
      now = since((TTL_SECONDS + 1) * 1000);
      await checker.check(domainInput(domain));
      await checker.drain();
      const kept = await checker.check(domainInput(domain));
      await checker.drain();
      expect([kept.cache, kept.status, kept.record.risk, kept.record.reason]).toEqual([
        "stale",
        good.status,
        good.record.risk,
        good.record.reason,
      ]);
      expect(script.calls).toHaveLength(2);
      expect((await store.records.getFacts(domain))?.facts).toEqual(working(domain));
    },
  );

  it.each(failures)(
    "keeps facts found during a temporary failure (%s) only 60 s",
    async (_where, domain, failed, status) => {
      script.answers.push(failed, working(domain));
      expect((await checker.check(domainInput(domain))).status).toBe(status);
      now = since(30_000);
      expect((await checker.check(domainInput(domain))).cache).toBe("hit");
      now = since(61_000);
      const stale = await checker.check(domainInput(domain));
      expect([stale.cache, stale.status]).toEqual(["stale", status]);
      await checker.drain();
      expect(script.calls).toHaveLength(2);
      expect((await store.records.getFacts(domain))?.facts).toEqual(working(domain));
      expect((await checker.check(domainInput(domain))).cache).toBe("hit");
    },
  );

  it("adds the address's role to the shared domain answer without keeping it", async () => {
    const role = await checker.check({ kind: "email", domain: DOMAIN, localPart: "postmaster" });
    expect([role.record.is_role_based_email, role.record.risk]).toEqual([true, 10]);
    const person = await checker.check({ kind: "email", domain: DOMAIN, localPart: "jane.doe" });
    expect([person.cache, person.record.is_role_based_email, person.record.risk]).toEqual(["hit", false, 0]);
    expect(script.calls).toHaveLength(1);
  });

  it("answers a hot domain from memory and sees another instance's newer facts within 30 s", async () => {
    await checker.check(domainInput(DOMAIN));
    const reads = { count: 0 };
    const getFacts = store.records.getFacts.bind(store.records);
    store.records.getFacts = (domain) => {
      reads.count += 1;
      return getFacts(domain);
    };
    await store.records.saveFacts(DOMAIN, unresolvable(DOMAIN), since(1000), false);
    now = since(29_000);
    expect((await checker.check(domainInput(DOMAIN))).record.risk).toBe(0);
    expect(reads.count).toBe(0);
    now = since(31_000);
    expect((await checker.check(domainInput(DOMAIN))).record.risk).toBe(40);
    expect(reads.count).toBe(1);
  });

  it.each<[string, string, DomainFacts]>([
    ["NXDOMAIN", "new-shop.com", NXDOMAIN],
    ["Null MX", "new-shop.com", routed("null_mx")],
    ["No MX or A record", "new-shop.com", routed("no_mail")],
    [
      "MX host does not exist",
      "new-shop.com",
      routed("mx_missing", [{ host: "mx.new-shop.com", priority: 10, ips: [] }]),
    ],
    ["Reserved name", "shop.example.net", working("shop.example.net")],
  ])(
    "keeps a takes-no-mail answer (%s) fresh for NEGATIVE_TTL only, then looks it up again before answering",
    async (reason, domain, facts) => {
      const negative = checkerWith({ negativeTtlSeconds: 600 });
      script.answers.push(facts, working(domain));
      expect((await negative.check(domainInput(domain))).record).toMatchObject({ reason, block: true });
      now = since(599_000);
      expect((await negative.check(domainInput(domain))).cache).toBe("hit");
      now = since(601_000);
      const again = await negative.check(domainInput(domain));
      expect(again.cache).toBe("miss");
      expect(script.calls).toEqual([domain, domain]);
      // Registered since (a reserved name stays what it is).
      expect(again.record.valid).toBe(reason !== "Reserved name");
    },
  );

  it("answers from memory, without waiting, only what check would answer as a fresh hit", async () => {
    const input = domainInput(DOMAIN);
    expect(checker.answerFromMemory(input, API), "not looked up yet").toBeUndefined();
    const first = await checker.check(input, API);
    const memory = checker.answerFromMemory(input, API);
    expect(memory?.result).toMatchObject({ cache: "hit", status: first.status });
    // The decided record itself, the same object answer after answer (its text is kept beside it).
    expect(memory?.result.record).toBe((await checker.check(input, API)).record);
    expect(script.calls).toEqual([DOMAIN]);
    now = since(TTL_SECONDS * 1000 + 1);
    expect(checker.answerFromMemory(input, API), "stale: check refreshes it").toBeUndefined();
    // A flip to record is check's: the block status of an API answer is noted first.
    const flipping = checkerWith({ recordsFlips: true });
    await flipping.check(input, { budget: "pages", client: "a visitor" });
    expect(flipping.answerFromMemory(input, API)).toBeUndefined();
  });

  it("lists the checked domain as recently checked", async () => {
    await checker.check({ kind: "email", domain: DOMAIN, localPart: "jane.doe" });
    await checker.drain();
    expect((await store.recent.listRecent(10)).map((entry) => entry.domain)).toEqual([DOMAIN]);
  });

  it("tells the evidence of each fresh look-up, and none for an answer from stored facts", async () => {
    const seen: EvidenceObservation[] = [];
    const sink = async (batch: readonly EvidenceObservation[]) => {
      seen.push(...batch);
    };
    const elsewhere: DomainFacts = {
      routing: {
        status: "mx",
        hosts: [{ host: "mx.mailhost-unknown.net", priority: 10, ips: ["192.0.2.7"] }],
        nameServers: ["ns1.mailhost-unknown.net"],
        addresses: [],
      },
      createdAt: null,
    };
    script.answers.push(elsewhere);
    const learning = checkerWith({ evidence: new Observer<EvidenceObservation>({ sinks: [sink] }) });
    await learning.check(domainInput(DOMAIN));
    await learning.drain();
    expect(seen).toEqual([
      {
        domain: DOMAIN,
        at: START,
        evidence: expect.objectContaining({ domain: DOMAIN, mxHosts: ["mx.mailhost-unknown.net"] }),
      },
    ]);
    // Another instance answers from the stored facts: no new evidence.
    const other = checkerWith({ evidence: new Observer<EvidenceObservation>({ sinks: [sink] }) });
    expect((await other.check(domainInput(DOMAIN))).cache).toBe("hit");
    await other.drain();
    expect(seen).toHaveLength(1);
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
      now = since((TTL_SECONDS + 1) * 1000);
    });

    it("answers every expired domain at once and refreshes them in half the budget, not all at once", async () => {
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

  it("looks expired facts up again before answering when stale answers are off (batch runs)", async () => {
    const batch = checkerWith({ serveStale: false });
    script.answers.push(working(DOMAIN), unresolvable(DOMAIN));
    await batch.check(domainInput(DOMAIN));
    now = since((TTL_SECONDS + 1) * 1000);
    const again = await batch.check(domainInput(DOMAIN));
    expect([again.cache, again.record.risk]).toEqual(["miss", 40]);
    expect(script.calls).toHaveLength(2);
  });

  it("keeps block_status_changed_at over look-ups until block flips", async () => {
    const batch = checkerWith({ serveStale: false, recordsFlips: true });
    script.answers.push(working(DOMAIN), unresolvable(DOMAIN), NXDOMAIN, working(DOMAIN));
    const answers = [];
    for (const step of [0, 1, 2, 3]) {
      now = since(step * (TTL_SECONDS + 1) * 1000);
      answers.push((await batch.check(domainInput(DOMAIN), API)).record);
    }
    expect(answers.map((record) => [record.block, record.risk, record.block_status_changed_at])).toEqual([
      [false, 0, formatTimestamp(START)],
      [false, 40, formatTimestamp(START)],
      [true, 100, formatTimestamp(since(2 * (TTL_SECONDS + 1) * 1000))],
      [false, 0, formatTimestamp(since(3 * (TTL_SECONDS + 1) * 1000))],
    ]);
    expect(script.calls).toHaveLength(4);
  });

  it("saves an age that comes after the answer, and answers with it from then on", async () => {
    let arrive: (facts: DomainFacts | null) => void = () => undefined;
    const aged = checkerWith({
      lookup: async (domain) => ({
        facts: working(domain),
        later: new Promise<DomainFacts | null>((resolve) => {
          arrive = resolve;
        }),
      }),
    });
    expect((await aged.check(domainInput(DOMAIN))).record.domain_age_days).toBeNull();
    now = since(1000);
    arrive(working(DOMAIN, new Date(START.getTime() - 5 * DAY)));
    await aged.drain();
    expect((await store.records.getFacts(DOMAIN))?.facts.createdAt).toEqual(
      new Date(START.getTime() - 5 * DAY),
    );
    const again = await aged.check(domainInput(DOMAIN));
    expect([again.cache, again.record.domain_age_days, again.record.risk, again.record.reason]).toEqual([
      "hit",
      5,
      50,
      "Domain age < 7 days",
    ]);
  });

  describe("when what decides verdicts changes (its version moves)", () => {
    it("answers an override at once with no look-up, and moves block_status_changed_at once", async () => {
      const learned = learnedStub();
      const overridden = checkerWith({ learned, recordsFlips: true });
      expect((await overridden.check(domainInput(DOMAIN), API)).record).toMatchObject({
        block: false,
        block_status_changed_at: formatTimestamp(START),
      });

      now = since(10_000);
      learned.override(DOMAIN, "deny");
      const denied = await overridden.check(domainInput(DOMAIN), API);
      expect([denied.cache, denied.status]).toEqual(["hit", "denied"]);
      expect(denied.record).toMatchObject({
        block: true,
        text: "Blocked by the operator",
        reason: "Operator override",
        block_status_changed_at: formatTimestamp(now),
      });
      now = since(20_000);
      const later = await overridden.check(domainInput(DOMAIN), API);
      expect(later.record).toMatchObject({
        block: true,
        block_status_changed_at: formatTimestamp(since(10_000)),
      });
      expect(script.calls).toEqual([DOMAIN]);

      // Recorded in the store: another instance, checking later, answers the same time.
      expect(await store.records.getFacts(DOMAIN)).toEqual({
        facts: working(DOMAIN),
        checkedAt: START,
        block: true,
        changedAt: since(10_000),
      });
      now = since(40_000);
      const other = checkerWith({ learned, recordsFlips: true });
      expect((await other.check(domainInput(DOMAIN), API)).record).toMatchObject({
        block: true,
        block_status_changed_at: formatTimestamp(since(10_000)),
      });

      // Lifted: it flips back, once, for both.
      now = since(50_000);
      learned.override(DOMAIN, undefined);
      expect((await other.check(domainInput(DOMAIN), API)).record).toMatchObject({
        block: false,
        reason: "Self-hosted",
        block_status_changed_at: formatTimestamp(since(50_000)),
      });
      now = since(55_000);
      expect((await overridden.check(domainInput(DOMAIN), API)).record).toMatchObject({
        block: false,
        block_status_changed_at: formatTimestamp(since(50_000)),
      });
      expect(script.calls).toEqual([DOMAIN]);
    });

    it("answers an override set during the domain's look-up, with that one look-up", async () => {
      const learned = learnedStub();
      const overridden = checkerWith({ learned });
      script.hold();
      const pending = overridden.check(domainInput(DOMAIN));
      await new Promise((resolve) => setImmediate(resolve));
      now = since(2000);
      learned.override(DOMAIN, "deny");
      script.open();
      expect((await pending).record).toMatchObject({
        block: true,
        reason: "Operator override",
        block_status_changed_at: formatTimestamp(since(2000)),
      });
      expect(script.calls).toEqual([DOMAIN]);
      expect(await store.records.getFacts(DOMAIN)).toMatchObject({ block: true, changedAt: since(2000) });
    });

    it("reuses the decided answer while the version stands, and decides again once it moves", async () => {
      const learned = learnedStub();
      const overridden = checkerWith({ learned });
      const first = await overridden.check(domainInput(DOMAIN));
      const decided = learned.asked;
      expect(decided).toBeGreaterThan(0);
      for (let second = 1; second <= 10; second++) {
        now = since(second * 1000);
        expect((await overridden.check(domainInput(DOMAIN))).record).toEqual(first.record);
      }
      expect(learned.asked).toBe(decided);

      learned.version += 1; // e.g. infrastructure learnt elsewhere: nothing here changes
      const again = await overridden.check(domainInput(DOMAIN));
      expect(learned.asked).toBeGreaterThan(decided);
      expect([again.cache, again.record]).toEqual(["hit", first.record]);
      expect(script.calls).toEqual([DOMAIN]);
    });
  });
});
