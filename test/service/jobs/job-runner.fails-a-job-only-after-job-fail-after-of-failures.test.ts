/**
 * A list job rides out faults (docs/jobs.md "Faults"): while its batches fail for less
 * than JOB_FAIL_AFTER, the job waits and then finishes, every row once; once they have
 * failed for JOB_FAIL_AFTER without one success, it ends `failed`, and not before.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestStore, type TestStore } from "../../../harness/databases.js";
import { cachedChecker, queuedJob } from "../../../harness/queued-job.js";
import { JobRunner } from "../../../src/service/jobs/job-runner.js";
import type { JobsRepository } from "../../../src/store/index.js";

const DAY_MS = 86_400_000;
const ITEMS = 300;

describe("JobRunner and JOB_FAIL_AFTER", () => {
  let db: TestStore;
  let runner: JobRunner | undefined;
  beforeEach(async () => {
    db = await openTestStore("sqlite");
  });
  afterEach(async () => {
    await runner?.stop();
    await db.cleanup();
  });

  const newJob = () => queuedJob(db.store, ITEMS, 50);

  /** The store's jobs, whose batch writes fail while `failing()` says so; the failures seen. */
  function flaky(failing: () => boolean) {
    const failures: number[] = [];
    const jobs: JobsRepository = {
      ...db.store.jobs,
      finishBatch: async (...args) => {
        if (failing()) {
          failures.push(Date.now());
          throw new Error("connection terminated");
        }
        return db.store.jobs.finishBatch(...args);
      },
    };
    return { jobs, failures };
  }

  async function ended(id: string, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await db.store.jobs.getJob(id);
      if (job && job.status !== "running" && job.status !== "queued") return { job, at: Date.now() };
      if (Date.now() > deadline) throw new Error(`still ${job?.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("waits out failures shorter than JOB_FAIL_AFTER and finishes, every row once", async () => {
    const id = await newJob();
    const until = Date.now() + 1500;
    const { jobs, failures } = flaky(() => Date.now() < until);
    runner = new JobRunner({
      jobs,
      checker: cachedChecker,
      holder: "t",
      retentionMs: DAY_MS,
      failAfterMs: 5000,
      everyMs: 50,
      testNames: false,
    });
    runner.start();
    const { job } = await ended(id, 20_000);
    // The fault was real and lasted: several batches failed before the first success.
    expect(failures.length).toBeGreaterThan(3);
    expect(job).toMatchObject({ status: "done", done: ITEMS, counts: { allow: ITEMS } });
    const batches = await db.store.jobs.results(id, -1, 100);
    expect(batches.map((batch) => batch.firstSeq)).toEqual([0, 50, 100, 150, 200, 250]);
    expect(runner.itemsChecked()).toBe(ITEMS);
  });

  it("fails a job whose batches fail for JOB_FAIL_AFTER without one success, and not before", async () => {
    const id = await newJob();
    const { jobs, failures } = flaky(() => true);
    runner = new JobRunner({
      jobs,
      checker: cachedChecker,
      holder: "t",
      retentionMs: DAY_MS,
      failAfterMs: 1000,
      everyMs: 50,
      testNames: false,
    });
    runner.start();
    const { job, at } = await ended(id, 20_000);
    expect(job.status).toBe("failed");
    expect(job.done).toBe(0);
    const first = failures[0] ?? at;
    expect(at - first).toBeGreaterThanOrEqual(1000);
    expect(failures.length).toBeGreaterThan(3);
  });
});
