/**
 * List jobs leave the API its headroom on a machine with no core to spare (docs/jobs.md
 * "Headroom"): a job whose checks are all CPU keeps the event loop busy under
 * JOB_LOOP_SHARE of the time, measured with the loop's utilization over the run and over
 * each half second, and still finishes; with a core to spare the same job runs
 * the loop flat out. The machine is told to `CpuShare` by its reading.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestStore, type TestStore } from "../../../harness/databases.js";
import { startPace } from "../../../harness/machine-pace.js";
import { queuedJob } from "../../../harness/queued-job.js";
import { sampleRecord, sampleStatus } from "../../../harness/sample-record.js";
import type { Checker } from "../../../src/service/checking/checker.js";
import { CpuShare, JOB_LOOP_SHARE, type MachineReading } from "../../../src/service/jobs/cpu-share.js";
import { JobRunner } from "../../../src/service/jobs/job-runner.js";

const DAY_MS = 86_400_000;
const ITEMS = 1_000;
/** The CPU each check takes, in milliseconds of a busy loop. */
const CHECK_MS = 0.5;
/** The windows the loop's share is also read over (the bound's own spans 100 to 200 ms). */
const WINDOW_MS = 500;
/** What the share may be exceeded by overall: the work done past the bound before a wait makes up for it (a batch written). */
const SLACK = 0.1;
/** vitest's limit for each case: the job's own bound is the machine's pace times a quiet machine's. */
const CASE_TIMEOUT_MS = 120_000;
/** And over one window, which may hold a batch's writing and not yet the wait after it. */
const WINDOW_SLACK = 0.2;

/** A checker whose every answer costs CHECK_MS of CPU. */
const busyChecker: Pick<Checker, "check"> = {
  check: async () => {
    const until = performance.now() + CHECK_MS;
    while (performance.now() < until) {}
    const record = sampleRecord();
    return { record, status: sampleStatus(record), cache: "hit" };
  },
};

describe("JobRunner with its share of a core", { timeout: CASE_TIMEOUT_MS }, () => {
  let db: TestStore;
  let runner: JobRunner | undefined;
  beforeEach(async () => {
    db = await openTestStore("sqlite");
  });
  afterEach(async () => {
    await runner?.stop();
    await db.cleanup();
  });

  /** Runs a job of ITEMS to done with the machine read as `machine`; the loop's utilization overall and its highest over a window. */
  async function runJob(machine: MachineReading) {
    const id = await queuedJob(db.store, ITEMS, 250);
    const pace = startPace();
    const started = performance.now();
    const before = performance.eventLoopUtilization();
    let windowStart = before;
    const windows: number[] = [];
    const sampler = setInterval(() => {
      const now = performance.eventLoopUtilization();
      windows.push(performance.eventLoopUtilization(now, windowStart).utilization);
      windowStart = now;
    }, WINDOW_MS);
    runner = new JobRunner({
      jobs: db.store.jobs,
      checker: busyChecker,
      cpu: new CpuShare({ machine: () => machine }),
      holder: "test",
      retentionMs: DAY_MS,
      everyMs: 10,
      testNames: false,
    });
    runner.start();
    try {
      // At the share, the checks' CPU takes 1 / JOB_LOOP_SHARE times as long; the writes and the waits'
      // rounding come on top. Ten times that on a quiet machine: the point is that it ends, not how fast.
      const bound = pace.bound((10 * ITEMS * CHECK_MS) / JOB_LOOP_SHARE);
      while ((await db.store.jobs.getJob(id))?.status !== "done") {
        if (performance.now() - started > bound) throw new Error(`the job did not end within ${bound} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      clearInterval(sampler);
      await runner.stop();
    }
    expect(runner.itemsChecked()).toBe(ITEMS);
    // The first window holds the claim's start; the last is cut short by the end.
    return {
      overall: performance.eventLoopUtilization(before).utilization,
      highest: Math.max(...windows.slice(1, -1)),
    };
  }

  it("keeps the loop under its share while the machine has no core to spare, and finishes", async () => {
    const { overall, highest } = await runJob({ othersCores: 2, cores: 2 });
    expect(overall).toBeLessThanOrEqual(JOB_LOOP_SHARE + SLACK);
    expect(highest).toBeLessThanOrEqual(JOB_LOOP_SHARE + WINDOW_SLACK);
  });

  it("runs the loop flat out with a core to spare", async () => {
    const { overall } = await runJob({ othersCores: 0, cores: 2 });
    expect(overall).toBeGreaterThan(JOB_LOOP_SHARE + 2 * SLACK);
  });
});
