/**
 * The list job metrics on /metrics (docs/jobs.md "Metrics"): `mailrisk_jobs` gives the
 * database's jobs by status (every status, zero included), `mailrisk_job_items_total`
 * the items this process checked; a runner over a real store feeds both.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestStore, type TestStore } from "../../harness/databases.js";
import { cachedChecker, queuedJob } from "../../harness/queued-job.js";
import { createMetrics } from "../../src/http/metrics-registry.js";
import { JobRunner } from "../../src/service/jobs/job-runner.js";

const DAY_MS = 86_400_000;

describe("list job metrics", () => {
  let db: TestStore;
  let runner: JobRunner | undefined;
  beforeEach(async () => {
    db = await openTestStore("sqlite");
  });
  afterEach(async () => {
    await runner?.stop();
    await db.cleanup();
  });

  it("count the jobs by status and the items checked", async () => {
    const cancelled = await queuedJob(db.store, 3);
    await db.store.jobs.endJob(cancelled, "cancelled", new Date(), DAY_MS);
    const id = await queuedJob(db.store, 7);
    runner = new JobRunner({
      jobs: db.store.jobs,
      checker: cachedChecker,
      holder: "test",
      retentionMs: DAY_MS,
      everyMs: 10,
      testNames: false,
    });
    const metrics = createMetrics({}, undefined, undefined, runner);
    runner.start();
    for (let waited = 0; (await db.store.jobs.getJob(id))?.status !== "done"; waited += 20) {
      if (waited > 10_000) throw new Error("the job never ended");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^mailrisk_job_items_total 7$/m);
    // Read as the runner started (every 10 s): one queued, one cancelled, the rest zero.
    const gauge = [...text.matchAll(/^mailrisk_jobs\{status="(\w+)"\} (\d+)$/gm)].map(([, s, n]) => [s, n]);
    expect(Object.fromEntries(gauge)).toEqual({
      queued: "1",
      running: "0",
      paused: "0",
      done: "0",
      failed: "0",
      cancelled: "1",
    });
  });
});
