/**
 * What an account's state does to its jobs in the store, on both databases
 * (docs/jobs.md "Suspension and deletion", "Faults"): pausing stops every claim of the
 * account's jobs and drops a batch in flight, another account's job runs on; resuming
 * finishes them, every row once; deleting removes the jobs with their batches. A job
 * remembers since when its batches have failed, until one succeeds.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import type { Store } from "../../src/store/index.js";

const T0 = new Date("2026-01-01T00:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const DAY_MS = 86_400_000;

async function accountKey(store: Store, email: string) {
  const { account, key } = await store.accounts.createAccount({
    email,
    passwordHash: null,
    role: "member",
    plan: "free",
    now: T0,
  });
  return { accountId: account.id, keyId: key.id };
}

/** A queued job of `count` items in batches of 10. */
async function newJob(store: Store, keyId: string, count: number): Promise<string> {
  const id = await store.jobs.startUpload({ keyId, header: "[]", layout: "{}", now: T0 });
  for (let first = 0; first < count; first += 10) {
    const items = Array.from({ length: Math.min(10, count - first) }, (_, i) => ({
      input: `d${first + i}.example`,
      row: "{}",
    }));
    await store.jobs.addBatch(id, first, items);
  }
  await store.jobs.queueJob(id, count, T0);
  return id;
}

function allowed(size: number) {
  return { results: "r", counts: { allow: size, block: 0, invalid: 0, unknown: 0 } };
}

/** Claims and finishes batches until none is left; the first seqs finished, by job. */
async function runAll(store: Store, holder: string, now: Date): Promise<Map<string, number[]>> {
  const finished = new Map<string, number[]>();
  for (;;) {
    const claimed = await store.jobs.claimBatch(holder, now, new Date(now.getTime() + 10_000));
    if (!claimed) return finished;
    if (claimed.inputs.length === 0) continue;
    await store.jobs.finishBatch(
      claimed.job.id,
      holder,
      claimed.firstSeq,
      allowed(claimed.inputs.length),
      now,
      DAY_MS,
    );
    finished.set(claimed.job.id, [...(finished.get(claimed.job.id) ?? []), claimed.firstSeq]);
  }
}

describe.each(DATABASE_KINDS)("account jobs on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("pauses an account's jobs, drops the batch in flight, and resumes them to done, every row once", async () => {
    const { store } = db;
    const ann = await accountKey(store, "ann@example.com");
    const bob = await accountKey(store, "bob@example.com");
    const running = await newJob(store, ann.keyId, 50);
    const inFlight = await store.jobs.claimBatch("a", at(1), at(11));
    expect(inFlight?.job.id).toBe(running);
    const queued = await newJob(store, ann.keyId, 20);
    const other = await newJob(store, bob.keyId, 30);

    expect(await store.jobs.pauseAccountJobs(ann.accountId)).toBe(2);
    expect((await store.jobs.getJob(running))?.status).toBe("paused");
    expect((await store.jobs.getJob(queued))?.status).toBe("paused");
    // The batch in flight writes nothing now; only the other account's job is claimed.
    expect(
      await store.jobs.finishBatch(running, "a", inFlight?.firstSeq ?? -1, allowed(10), at(2), DAY_MS),
    ).toBeUndefined();
    const whilePaused = await runAll(store, "b", at(3));
    expect([...whilePaused.keys()]).toEqual([other]);
    expect((await store.jobs.getJob(running))?.done).toBe(0);

    expect(await store.jobs.resumeAccountJobs(ann.accountId)).toBe(2);
    expect((await store.jobs.getJob(running))?.status).toBe("running");
    expect((await store.jobs.getJob(queued))?.status).toBe("queued");
    // The batch given up at the pause is claimed at once, not when its lease ends.
    const afterResume = await runAll(store, "b", at(4));
    expect(afterResume.get(running)?.sort((x, y) => x - y)).toEqual([0, 10, 20, 30, 40]);
    expect(afterResume.get(queued)?.sort((x, y) => x - y)).toEqual([0, 10]);
    for (const id of [running, queued])
      expect(await store.jobs.getJob(id)).toMatchObject({ status: "done", done: id === running ? 50 : 20 });
  });

  it("cancels a paused job with its units given back, and resumes nothing ended", async () => {
    const { store } = db;
    const ann = await accountKey(store, "ann@example.com");
    const id = await newJob(store, ann.keyId, 20);
    await store.jobs.pauseAccountJobs(ann.accountId);
    expect((await store.jobs.endJob(id, "cancelled", at(1), DAY_MS))?.status).toBe("cancelled");
    expect(await store.jobs.resumeAccountJobs(ann.accountId)).toBe(0);
    expect((await store.jobs.getJob(id))?.status).toBe("cancelled");
  });

  it("deletes every job of an account with its batches, and leaves another's", async () => {
    const { store } = db;
    const ann = await accountKey(store, "ann@example.com");
    const bob = await accountKey(store, "bob@example.com");
    const mine = [await newJob(store, ann.keyId, 20), await newJob(store, ann.keyId, 10)];
    await runAll(store, "a", at(1));
    const running = await newJob(store, ann.keyId, 30);
    const other = await newJob(store, bob.keyId, 10);
    expect(await store.jobs.deleteAccountJobs(ann.accountId)).toBe(3);
    for (const id of [...mine, running]) {
      expect(await store.jobs.getJob(id)).toBeUndefined();
      expect(await store.jobs.results(id, -1, 100)).toEqual([]);
    }
    expect((await store.jobs.getJob(other))?.status).toBe("queued");
    expect(await store.jobs.results(other, -1, 100)).toHaveLength(1);
  });

  it("remembers since when a job's batches fail until one succeeds, and gives a failed claim up", async () => {
    const { store } = db;
    const ann = await accountKey(store, "ann@example.com");
    const id = await newJob(store, ann.keyId, 20);
    const first = await store.jobs.claimBatch("a", at(1), at(11));
    expect(await store.jobs.noteFailure(id, at(2))).toEqual(at(2));
    expect(await store.jobs.noteFailure(id, at(5))).toEqual(at(2));
    await store.jobs.releaseClaim(id, "a", first?.firstSeq ?? -1);
    // Released: claimed again at once by another instance.
    const again = await store.jobs.claimBatch("b", at(6), at(16));
    expect(again?.firstSeq).toBe(first?.firstSeq);
    await store.jobs.finishBatch(id, "b", again?.firstSeq ?? -1, allowed(10), at(7), DAY_MS);
    expect(await store.jobs.noteFailure(id, at(8))).toEqual(at(8));
    await store.jobs.pauseAccountJobs(ann.accountId);
    expect(await store.jobs.noteFailure(id, at(9))).toBeUndefined();
  });
});
