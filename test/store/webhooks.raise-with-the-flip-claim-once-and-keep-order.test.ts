/**
 * The webhook outbox on both databases: a flip recorded with a notice writes one event per
 * subscribed webhook when the domain is watched, and nothing when another instance
 * recorded the flip first or the domain is not watched; claims are exclusive across
 * instances, keep order per webhook and domain, expire, and a stale claim records nothing;
 * a flip decided under a policy version the store has moved past records nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { mxFacts } from "../../harness/sample-facts.js";
import { retryDelayMs } from "../../src/service/webhooks/webhook-delivery.js";
import { policyVersion } from "../../src/store/changes-types.js";
import type { FlipNotice } from "../../src/store/index.js";

const T0 = new Date("2026-01-01T00:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const notice = (watchedSince: Date): FlipNotice => ({ watchedSince, record: { reason: "operator_deny" } });

describe.each(DATABASE_KINDS)("the webhook outbox on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("records a flip decided under an older policy version as nothing, and under the current one as a flip", async () => {
    const { records, webhooks, changes, overrides } = db.store;
    await webhooks.createWebhook({
      url: "http://127.0.0.1:1/a",
      secret: "a",
      events: ["domain.blocked", "domain.unblocked"],
      now: T0,
    });
    await records.saveFacts("policy.test", mxFacts("policy.test"), T0, false);
    await records.markAnswered(["policy.test"], at(1), at(1 - 86_400));
    const before = policyVersion(await changes.versions());
    // Another instance denies the domain: the store raises the overrides counter.
    await overrides.setOverride({
      kind: "domain",
      value: "policy.test",
      action: "deny",
      note: null,
      createdAt: at(2),
    });
    const now = policyVersion(await changes.versions());
    expect(now).toBeGreaterThan(before);

    const denied = { ...notice(at(-10)), policyVersion: now };
    expect(await records.noteBlock("policy.test", true, at(3), denied)).toMatchObject({
      flipped: true,
      block: true,
    });
    // A process that has not reloaded the override yet answers the old verdict: it is not written back.
    const stale = { ...notice(at(-10)), policyVersion: before };
    expect(await records.noteBlock("policy.test", false, at(4), stale)).toMatchObject({
      flipped: false,
      block: true,
    });
    expect((await webhooks.deliveries(null, 10)).map((e) => e.type)).toEqual(["domain.blocked"]);
    // Without a version (the CLI), a flip is recorded as before.
    expect((await records.noteBlock("policy.test", false, at(5), notice(at(-10)))).flipped).toBe(true);
  });

  it("writes one event per subscribed webhook with the flip, only when watched and only once", async () => {
    const { records, webhooks } = db.store;
    const both = await webhooks.createWebhook({
      url: "http://127.0.0.1:1/a",
      secret: "a",
      events: ["domain.blocked", "domain.unblocked"],
      now: T0,
    });
    const unblockedOnly = await webhooks.createWebhook({
      url: "http://127.0.0.1:1/b",
      secret: "b",
      events: ["domain.unblocked"],
      now: T0,
    });
    await records.saveFacts("watched.test", mxFacts("watched.test"), T0, false);
    await records.saveFacts("old.test", mxFacts("old.test"), at(-200_000), false);
    const other = await db.openAnother();

    expect((await records.noteBlock("watched.test", true, at(1), notice(at(-10)))).flipped).toBe(true);
    expect((await other.records.noteBlock("watched.test", true, at(2), notice(at(-10)))).flipped).toBe(false);
    expect((await records.noteBlock("old.test", true, at(1), notice(at(-10)))).flipped).toBe(true);
    let events = await webhooks.deliveries(null, 10);
    expect(events.map((e) => [e.webhookId, e.domain, e.type, e.status])).toEqual([
      [both.id, "watched.test", "domain.blocked", "pending"],
    ]);
    // Marking answered makes old.test watched; the flip back reaches both webhooks.
    await records.markAnswered(["old.test", "watched.test"], at(5), at(5 - 86_400));
    expect((await records.noteBlock("old.test", false, at(6), notice(at(-10)))).flipped).toBe(true);
    events = await webhooks.deliveries(null, 10);
    expect(
      events
        .filter((e) => e.domain === "old.test")
        .map((e) => e.webhookId)
        .sort(),
    ).toEqual([both.id, unblockedOnly.id].sort());
    const claimed = await webhooks.claimDue("me", at(10), at(70), 10);
    const body = JSON.parse(
      claimed.find((e) => e.webhookId === both.id && e.body.includes("watched.test"))?.body ?? "{}",
    );
    expect(body).toMatchObject({
      type: "domain.blocked",
      domain: "watched.test",
      block: true,
      previous_block: false,
      reason: "operator_deny",
      record: { reason: "operator_deny" },
      created_at: at(1).toISOString(),
    });
    expect(await webhooks.removeWebhook(unblockedOnly.id)).toBe(true);
    expect((await webhooks.deliveries(null, 10)).every((e) => e.webhookId === both.id)).toBe(true);
  });

  it("claims each event once across instances, oldest first per domain, and lets an expired claim go", async () => {
    const { records, webhooks } = db.store;
    const hook = await webhooks.createWebhook({
      url: "http://127.0.0.1:1/",
      secret: "s",
      events: ["domain.blocked", "domain.unblocked"],
      now: T0,
    });
    for (let i = 0; i < 30; i++) {
      const domain = `d${i}.test`;
      await records.saveFacts(domain, mxFacts(domain), T0, false);
      await records.noteBlock(domain, true, at(1), notice(at(-10)));
    }
    // A second event of d0.test waits behind its first.
    await records.noteBlock("d0.test", false, at(2), notice(at(-10)));
    const other = await db.openAnother();
    const [mine, theirs] = await Promise.all([
      webhooks.claimDue("a", at(3), at(63), 40),
      other.webhooks.claimDue("b", at(3), at(63), 40),
    ]);
    const ids = [...mine, ...theirs].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(30);
    expect(
      [...mine, ...theirs].filter((e) => e.body.includes('"d0.test"')).map((e) => JSON.parse(e.body).block),
    ).toEqual([true]);
    expect(await webhooks.claimDue("c", at(4), at(64), 40)).toEqual([]);

    // d0's first event fails and waits for its retry: its second still waits behind it.
    const first = [...mine, ...theirs].find((e) => e.body.includes('"d0.test"'));
    const holder = mine.includes(first as (typeof mine)[number]) ? "a" : "b";
    await webhooks.finishAttempt(
      first?.id as string,
      holder,
      { attempt: 1, at: at(5), statusCode: 500, error: null, durationMs: 3 },
      { status: "pending", nextAttemptAt: at(15) },
    );
    expect(await webhooks.claimDue("c", at(6), at(66), 40)).toEqual([]);
    // Claims expire: after 63 s everything still pending is claimable again, d0's first before its second.
    const again = await webhooks.claimDue("c", at(70), at(130), 40);
    expect(again.filter((e) => e.body.includes('"d0.test"')).map((e) => JSON.parse(e.body).block)).toEqual([
      true,
    ]);
    expect(again).toHaveLength(30);
    // The stale holder's attempt records nothing.
    const late = again.find((e) => e.id !== first?.id) as (typeof again)[number];
    await webhooks.finishAttempt(
      late.id,
      holder === "a" ? "b" : "a",
      { attempt: 1, at: at(71), statusCode: 200, error: null, durationMs: 1 },
      { status: "delivered", nextAttemptAt: at(71) },
    );
    const stored = (await webhooks.deliveries(hook.id, 100)).find((e) => e.id === late.id);
    expect(stored).toMatchObject({ status: "pending", attempts: [] });
    await webhooks.finishAttempt(
      late.id,
      "c",
      { attempt: 1, at: at(72), statusCode: 204, error: null, durationMs: 1 },
      { status: "delivered", nextAttemptAt: at(72) },
    );
    expect((await webhooks.deliveries(hook.id, 100)).find((e) => e.id === late.id)).toMatchObject({
      status: "delivered",
      nextAttemptAt: null,
      attempts: [{ attempt: 1, statusCode: 204 }],
    });
    expect(await webhooks.deliveryCounts()).toEqual(
      expect.arrayContaining([
        { webhookId: hook.id, status: "delivered", count: 1 },
        { webhookId: hook.id, status: "pending", count: 30 },
      ]),
    );
  });

  it("walks the watched records in batches by domain", async () => {
    const { records } = db.store;
    for (let i = 0; i < 5; i++) await records.saveFacts(`w${i}.test`, mxFacts(`w${i}.test`), T0, false);
    await records.saveFacts("old.test", mxFacts("old.test"), at(-1000), false);
    const first = await records.watchedFacts(at(-10), null, 3);
    expect(first.map((w) => w.domain)).toEqual(["w0.test", "w1.test", "w2.test"]);
    const rest = await records.watchedFacts(at(-10), "w2.test", 3);
    expect(rest.map((w) => [w.domain, w.block, w.facts !== null])).toEqual([
      ["w3.test", false, true],
      ["w4.test", false, true],
    ]);
  });
});

it("waits 10 s after the first failure, doubling, capped at an hour", () => {
  const timing = { firstRetryMs: 10_000, maxRetryMs: 3_600_000 };
  expect([1, 2, 3, 4, 9, 10, 20].map((failed) => retryDelayMs(failed, timing))).toEqual([
    10_000, 20_000, 40_000, 80_000, 2_560_000, 3_600_000, 3_600_000,
  ]);
});
