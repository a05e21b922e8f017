/**
 * List jobs leave the API its headroom (docs/jobs.md "Headroom"): while a checking
 * request is in progress the runner starts no check and claims no batch; once the
 * requests have answered it goes on to done. The gauge of requests in progress wakes its
 * waiters when the last one answers, gives up waiting after the longest wait, and takes a
 * count no request moved for a second as idle.
 *
 * @room shared: its bounds on time are lower ones (no check in the first 300 ms; the
 * longest wait lasts at least 45 ms), the second a request may stay is on fake timers,
 * and the wait for the job's end is a safety net, so a loaded machine keeps them
 * (test/projects.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openTestStore, type TestStore } from "../../../harness/databases.js";
import { queuedJob } from "../../../harness/queued-job.js";
import { sampleRecord, sampleStatus } from "../../../harness/sample-record.js";
import type { Checker } from "../../../src/service/checking/checker.js";
import { JobRunner } from "../../../src/service/jobs/job-runner.js";
import { RequestsInProgress } from "../../../src/service/jobs/requests-in-progress.js";

const DAY_MS = 86_400_000;
const ITEMS = 200;

describe("JobRunner and the API's requests in progress", () => {
  let db: TestStore;
  let runner: JobRunner | undefined;
  beforeEach(async () => {
    db = await openTestStore("sqlite");
  });
  afterEach(async () => {
    vi.useRealTimers();
    await runner?.stop();
    await db.cleanup();
  });

  it("starts no check while a request is in progress, then finishes the job", async () => {
    const id = await queuedJob(db.store, ITEMS);
    let checks = 0;
    const checker: Pick<Checker, "check"> = {
      check: async () => {
        checks++;
        const record = sampleRecord();
        return { record, status: sampleStatus(record), cache: "hit" };
      },
    };
    // A request that stays in progress until the test lets it answer (the longest wait is ignored).
    let answer = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let busy = true;
    void answered.then(() => {
      busy = false;
    });
    const requests = { busy: () => busy, whenIdle: () => (busy ? answered : Promise.resolve()) };
    runner = new JobRunner({
      jobs: db.store.jobs,
      checker,
      requests,
      holder: "test",
      retentionMs: DAY_MS,
      everyMs: 10,
      testNames: false,
    });
    runner.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(checks).toBe(0);
    expect((await db.store.jobs.getJob(id))?.status).toBe("queued");
    answer();
    for (let waited = 0; (await db.store.jobs.getJob(id))?.status !== "done"; waited += 20) {
      if (waited > 10_000) throw new Error("the job never ended");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(checks).toBe(ITEMS);
  });

  it("wakes the waiters when the last request answers, or after the longest wait", async () => {
    const requests = new RequestsInProgress();
    expect(requests.busy()).toBe(false);
    await requests.whenIdle(10_000);
    requests.started();
    requests.started();
    expect(requests.busy()).toBe(true);
    let woken = false;
    const waiting = requests.whenIdle(10_000).then(() => {
      woken = true;
    });
    requests.ended();
    await Promise.resolve();
    expect(woken).toBe(false);
    requests.ended();
    await waiting;
    expect(requests.busy()).toBe(false);
    // A response that never finished: the wait ends after its longest, and the count goes stale.
    requests.started();
    const started = performance.now();
    await requests.whenIdle(50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    vi.useFakeTimers({ toFake: ["performance"] });
    const stale = new RequestsInProgress();
    stale.started();
    vi.advanceTimersByTime(999);
    expect(stale.busy()).toBe(true);
    vi.advanceTimersByTime(2);
    expect(stale.busy()).toBe(false);
  });
});
