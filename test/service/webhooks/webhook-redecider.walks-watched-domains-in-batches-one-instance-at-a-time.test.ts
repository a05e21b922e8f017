/**
 * The re-decider: it walks every watched domain (and no other) in batches when the
 * version of what decides verdicts moved, not when it did not; it skips the walk with no
 * webhook; and while one instance holds the lock another does not walk and tries again.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { openTestStore, type TestStore } from "../../../harness/databases.js";
import { mxFacts } from "../../../harness/sample-facts.js";
import { WebhookRedecider } from "../../../src/service/webhooks/webhook-redecider.js";
import type { WatchedFacts } from "../../../src/store/index.js";

const NOW = new Date("2026-06-01T00:00:00Z");
let db: TestStore;

beforeEach(async () => {
  db = await openTestStore("sqlite");
  for (let i = 0; i < 25; i++)
    await db.store.records.saveFacts(`w${i}.test`, mxFacts(`w${i}.test`), NOW, false);
  await db.store.records.saveFacts(
    "old.test",
    mxFacts("old.test"),
    new Date(NOW.getTime() - 40 * 86_400_000),
    false,
  );
});
afterEach(() => db.cleanup());

function target() {
  const seen: string[] = [];
  return {
    seen,
    version: 1,
    sourcesVersion() {
      return this.version;
    },
    async redecide(watched: WatchedFacts) {
      seen.push(watched.domain);
      return watched.domain === "w3.test";
    },
  };
}

function redecider(t: ReturnType<typeof target>, holder = "a") {
  return new WebhookRedecider({
    store: db.store,
    target: t,
    watchDays: 30,
    holder,
    clock: () => NOW,
    batchSize: 10,
    restRatio: 0,
  });
}

it("walks every watched domain in batches when the version moved, and only then", async () => {
  await db.store.webhooks.createWebhook({
    url: "http://127.0.0.1:1/",
    secret: "s".repeat(16),
    events: ["domain.blocked"],
    now: NOW,
  });
  const t = target();
  const passes: unknown[] = [];
  const walker = new WebhookRedecider({
    store: db.store,
    target: t,
    watchDays: 30,
    holder: "a",
    clock: () => NOW,
    batchSize: 10,
    restRatio: 0,
    onPass: (pass) => passes.push(pass),
  });
  walker.start();
  await vi.waitFor(() => expect(passes).toHaveLength(1), { timeout: 5000, interval: 20 });
  expect(t.seen).toHaveLength(25);
  expect(t.seen).not.toContain("old.test");
  expect(passes).toEqual([{ domains: 25, flips: 1, ms: expect.any(Number) }]);
  // Nothing changed: a second (the walker looks again every second) walks nothing more.
  await new Promise((resolve) => setTimeout(resolve, 1200));
  expect(t.seen).toHaveLength(25);
  t.version = 2;
  await vi.waitFor(() => expect(t.seen).toHaveLength(50), { timeout: 5000, interval: 20 });
  await walker.stop();
});

it("walks nothing without a webhook", async () => {
  const t = target();
  const walker = redecider(t);
  walker.start();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await walker.stop();
  expect(t.seen).toEqual([]);
});

it("leaves the walk to the instance holding the lock", async () => {
  const taken = await db.store.locks.tryLock("webhooks.redecide", "b", NOW, new Date(NOW.getTime() + 60_000));
  expect(taken).toBe(true);
  const t = target();
  expect(await redecider(t, "a").pass()).toBeNull();
  expect(t.seen).toEqual([]);
  await db.store.locks.unlock("webhooks.redecide", "b");
  expect(await redecider(t, "a").pass()).toMatchObject({ domains: 25, flips: 1 });
});
