/**
 * List jobs in the store, on both databases: two instances claiming at once never share a
 * batch; a claim that expires is taken again and the late holder's outcomes are dropped;
 * owners take turns, the keys of one account sharing one turn; the last batch ends the
 * job with its event; a cancel gives the unchecked units back; housekeeping deletes an
 * expired job, then its batches.
 *
 * @room shared: claims expire on the times the test passes (T0 and seconds after it), never
 * on the wall clock, so a loaded machine changes nothing they prove (test/projects.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import type { FinishedJobBatch, Store } from "../../src/store/index.js";

const T0 = new Date("2026-01-01T00:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const DAY_MS = 86_400_000;

/** A queued job of `count` items stored in batches of `batch`. */
async function newJob(store: Store, keyId: string, count: number, batch = count): Promise<string> {
  const id = await store.jobs.startUpload({ keyId, header: "[]", layout: "{}", now: T0 });
  for (let first = 0; first < count; first += batch) {
    const size = Math.min(batch, count - first);
    const items = Array.from({ length: size }, (_, i) => ({
      input: `d${first + i}.example`,
      row: `{"i":${first + i}}`,
    }));
    await store.jobs.addBatch(id, first, items);
  }
  await store.jobs.queueJob(id, count, T0);
  return id;
}

/** A claimed batch's outcomes: every item allowed, the results text naming the batch. */
function allowed(claimed: { firstSeq: number; inputs: readonly string[] } | undefined): FinishedJobBatch {
  const size = claimed?.inputs.length ?? 0;
  return {
    results: `batch ${claimed?.firstSeq}`,
    counts: { allow: size, block: 0, invalid: 0, unknown: 0 },
  };
}

function finish(
  store: Store,
  id: string,
  holder: string,
  claimed: { firstSeq: number; inputs: string[] } | undefined,
  at: Date,
) {
  return store.jobs.finishBatch(id, holder, claimed?.firstSeq ?? -1, allowed(claimed), at, DAY_MS);
}

describe.each(DATABASE_KINDS)("list jobs on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("claims each batch once across instances, takes expired claims again and drops the late holder's outcomes", async () => {
    const other = await db.openAnother();
    const id = await newJob(db.store, "k1", 100, 10);
    const [a, b] = await Promise.all([
      db.store.jobs.claimBatch("a", at(1), at(11)),
      other.jobs.claimBatch("b", at(1), at(11)),
    ]);
    const claimedA = a?.inputs.length ? [a.firstSeq] : [];
    const claimedB = b?.inputs.length ? [b.firstSeq] : [];
    expect(claimedA).toHaveLength(1);
    expect(claimedA.filter((seq) => claimedB.includes(seq))).toEqual([]);
    expect(a?.inputs).toEqual(Array.from({ length: 10 }, (_, i) => `d${(a?.firstSeq ?? 0) + i}.example`));
    // a's lease ends unrenewed: c takes its batch (the lowest free ones come first); a's outcomes then write nothing.
    const c1 = await db.store.jobs.claimBatch("c", at(20), at(30));
    const c2 = await db.store.jobs.claimBatch("c", at(20), at(30));
    const c = [c1, c2].find((claimed) => claimed?.firstSeq === a?.firstSeq);
    expect(c).toBeDefined();
    await finish(db.store, id, "a", a, at(21));
    expect((await db.store.jobs.getJob(id))?.done).toBe(0);
    await finish(db.store, id, "c", c, at(21));
    expect((await db.store.jobs.getJob(id))?.done).toBe(10);
    // Answered once: the holder's second write is dropped too.
    await finish(db.store, id, "c", c, at(22));
    expect(await db.store.jobs.getJob(id)).toMatchObject({ done: 10, counts: { allow: 10 } });
  });

  it("gives the keys of one account one turn between them, and a key without an account its own", async () => {
    await db.store.plans.createPlan({ name: "p", quota: 1000, periodDays: 30 });
    const made = await db.store.accounts.createAccount({
      email: "ann@example.com",
      passwordHash: null,
      role: "member",
      plan: "p",
      now: T0,
    });
    const second = await db.store.keys.createKey({ plan: "p", now: T0, accountId: made.account.id });
    const own = await db.store.keys.createKey({ plan: "p", now: T0 });
    const jobs = new Map([
      [await newJob(db.store, made.key.id, 4, 1), "account"],
      [await newJob(db.store, second.key.id, 4, 1), "account"],
      [await newJob(db.store, own.key.id, 4, 1), "own"],
    ]);
    const owners: (string | undefined)[] = [];
    for (let turn = 1; turn <= 6; turn++) {
      const claimed = await db.store.jobs.claimBatch("h", at(turn), at(turn + 10));
      owners.push(jobs.get(claimed?.job.id ?? ""));
    }
    // By key, the account's two keys would take two turns of every three.
    const alternating = owners[0] === "own" ? ["own", "account"] : ["account", "own"];
    expect(owners).toEqual([...alternating, ...alternating, ...alternating]);
  });

  it("gives owners turns, ends the job with its last batch and writes job.completed with it", async () => {
    await db.store.webhooks.createWebhook({
      url: "http://127.0.0.1:1/h",
      secret: "s",
      events: ["job.completed"],
      now: T0,
    });
    const big = await newJob(db.store, "big", 6, 2);
    const small = await newJob(db.store, "small", 2);
    const first = await db.store.jobs.claimBatch("h", at(1), at(11));
    const second = await db.store.jobs.claimBatch("h", at(2), at(12));
    expect([first?.job.id, second?.job.id].sort()).toEqual([big, small].sort());
    const smallBatch = first?.job.id === small ? first : second;
    expect(smallBatch?.inputs).toEqual(["d0.example", "d1.example"]);
    const ended = await finish(db.store, small, "h", smallBatch, at(3));
    expect(ended).toMatchObject({ id: small, status: "done", done: 2, counts: { allow: 2 } });
    expect(ended?.expiresAt).toEqual(new Date(at(3).getTime() + DAY_MS));
    const events = await db.store.webhooks.deliveries(null, 10);
    expect(events.map((event) => [event.type, event.domain])).toEqual([["job.completed", small]]);
    const batches = await db.store.jobs.results(small, -1, 10);
    expect(batches).toEqual([
      { firstSeq: 0, rows: '[{"i":0},{"i":1}]', inputs: '["d0.example","d1.example"]', results: "batch 0" },
    ]);
  });

  it("gives a cancelled job's unchecked units back, and housekeeping deletes it once expired", async () => {
    await db.store.plans.createPlan({ name: "p", quota: 100, periodDays: 30 });
    const { key, secret } = await db.store.keys.createKey({ plan: "p", now: T0 });
    const counted = await db.store.usage.authorize(secret, T0, 10);
    expect(counted?.quota.used).toBe(10);
    const id = await db.store.jobs.startUpload({ keyId: key.id, header: "[]", layout: "{}", now: T0 });
    for (let first = 0; first < 10; first += 4) {
      const items = Array.from({ length: Math.min(4, 10 - first) }, (_, i) => ({
        input: `${first + i}.example`,
        row: "{}",
      }));
      await db.store.jobs.addBatch(id, first, items);
    }
    await db.store.jobs.queueJob(id, 10, counted?.quota.periodStart ?? T0);
    const claimed = await db.store.jobs.claimBatch("h", at(1), at(11));
    await finish(db.store, id, "h", claimed, at(2));
    const cancelled = await db.store.jobs.endJob(id, "cancelled", at(3), DAY_MS);
    expect(cancelled).toMatchObject({ status: "cancelled", done: 4 });
    expect((await db.store.usage.authorize(secret, at(4), 0))?.quota.used).toBe(4);
    expect(await db.store.jobs.endJob(id, "cancelled", at(4), DAY_MS)).toBeUndefined();
    expect(await db.store.housekeeping.pruneJobs(at(5), T0, 100)).toBe(0);
    const later = new Date(at(3).getTime() + DAY_MS + 1);
    expect(await db.store.housekeeping.pruneJobs(later, T0, 2)).toBe(2);
    expect(await db.store.housekeeping.pruneJobs(later, T0, 2)).toBe(2);
    expect(await db.store.jobs.getJob(id)).toBeUndefined();
  });
});
