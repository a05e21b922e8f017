/**
 * List jobs in the store, on both databases: two instances claiming at once never share a
 * row; a claim that expires is taken again and the late holder's outcomes are dropped;
 * owners take turns; the last batch ends the job with its event; a cancel gives the
 * unchecked units back; housekeeping deletes an expired job, then its rows.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import type { FinishedJobItem, Store } from "../../src/store/types.js";

const T0 = new Date("2026-01-01T00:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const DAY_MS = 86_400_000;

async function newJob(store: Store, keyId: string, count: number): Promise<string> {
  const id = await store.jobs.startUpload({ keyId, header: "[]", layout: "{}", now: T0 });
  const items = Array.from({ length: count }, (_, i) => ({ input: `d${i}.example`, row: `{"i":${i}}` }));
  await store.jobs.addItems(id, 0, items);
  await store.jobs.queueJob(id, count, T0);
  return id;
}

function allowed(seqs: readonly { seq: number }[]): FinishedJobItem[] {
  return seqs.map(({ seq }) => ({ seq, result: `{"seq":${seq}}`, verdict: "allow", count: "allow" }));
}

describe.each(DATABASE_KINDS)("list jobs on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("claims each row once across instances, takes expired claims again and drops the late holder's outcomes", async () => {
    const other = await db.openAnother();
    const id = await newJob(db.store, "k1", 100);
    const [a, b] = await Promise.all([
      db.store.jobs.claimItems("a", at(1), at(11), 30),
      other.jobs.claimItems("b", at(1), at(11), 30),
    ]);
    const seqsA = a?.items.map((item) => item.seq) ?? [];
    const seqsB = b?.items.map((item) => item.seq) ?? [];
    expect(seqsA.filter((seq) => seqsB.includes(seq))).toEqual([]);
    // a's lease ends unrenewed: c takes its rows; a's outcomes then write nothing.
    const c = await db.store.jobs.claimItems("c", at(20), at(30), 100);
    expect(c?.items.map((item) => item.seq)).toEqual(expect.arrayContaining(seqsA));
    await db.store.jobs.finishItems(id, "a", allowed(a?.items ?? []), at(21), DAY_MS);
    expect((await db.store.jobs.getJob(id))?.done).toBe(0);
    await db.store.jobs.finishItems(id, "c", allowed(c?.items ?? []), at(21), DAY_MS);
    expect((await db.store.jobs.getJob(id))?.done).toBe(c?.items.length);
  });

  it("gives owners turns, ends the job with its last batch and writes job.completed with it", async () => {
    await db.store.webhooks.createWebhook({
      url: "http://127.0.0.1:1/h",
      secret: "s",
      events: ["job.completed"],
      now: T0,
    });
    const big = await newJob(db.store, "big", 6);
    const small = await newJob(db.store, "small", 2);
    const first = await db.store.jobs.claimItems("h", at(1), at(11), 2);
    const second = await db.store.jobs.claimItems("h", at(2), at(12), 2);
    expect([first?.job.id, second?.job.id].sort()).toEqual([big, small].sort());
    const smallBatch = first?.job.id === small ? first : second;
    const ended = await db.store.jobs.finishItems(
      small,
      "h",
      allowed(smallBatch?.items ?? []),
      at(3),
      DAY_MS,
    );
    expect(ended).toMatchObject({ id: small, status: "done", done: 2, counts: { allow: 2 } });
    expect(ended?.expiresAt).toEqual(new Date(at(3).getTime() + DAY_MS));
    const events = await db.store.webhooks.deliveries(null, 10);
    expect(events.map((event) => [event.type, event.domain])).toEqual([["job.completed", small]]);
    const rows = await db.store.jobs.results(small, ["allow"], -1, 10);
    expect(rows.map((row) => row.result)).toEqual(smallBatch?.items.map(({ seq }) => `{"seq":${seq}}`));
  });

  it("gives a cancelled job's unchecked units back, and housekeeping deletes it once expired", async () => {
    await db.store.plans.createPlan({ name: "p", quota: 100, periodDays: 30 });
    const { key, secret } = await db.store.keys.createKey({ plan: "p", now: T0 });
    const counted = await db.store.usage.authorize(secret, T0, 10);
    expect(counted?.quota.used).toBe(10);
    const id = await db.store.jobs.startUpload({ keyId: key.id, header: "[]", layout: "{}", now: T0 });
    await db.store.jobs.addItems(
      id,
      0,
      Array.from({ length: 10 }, (_, i) => ({ input: `${i}.example`, row: "{}" })),
    );
    await db.store.jobs.queueJob(id, 10, counted?.quota.periodStart ?? T0);
    const claimed = await db.store.jobs.claimItems("h", at(1), at(11), 4);
    await db.store.jobs.finishItems(id, "h", allowed(claimed?.items ?? []), at(2), DAY_MS);
    const cancelled = await db.store.jobs.endJob(id, "cancelled", at(3), DAY_MS);
    expect(cancelled).toMatchObject({ status: "cancelled", done: 4 });
    expect((await db.store.usage.authorize(secret, at(4), 0))?.quota.used).toBe(4);
    expect(await db.store.jobs.endJob(id, "cancelled", at(4), DAY_MS)).toBeUndefined();
    expect(await db.store.housekeeping.pruneJobs(at(5), T0, 100)).toBe(0);
    const later = new Date(at(3).getTime() + DAY_MS + 1);
    expect(await db.store.housekeeping.pruneJobs(later, T0, 6)).toBe(6);
    expect(await db.store.housekeeping.pruneJobs(later, T0, 6)).toBe(5);
    expect(await db.store.jobs.getJob(id)).toBeUndefined();
  });
});
