/**
 * A list job takes turns with the server's requests (docs/jobs.md "Running"): between
 * two turns of the event loop it starts at most 8 checks, even when each check does its
 * work in microtasks (a record read and decided, a flip recorded) with 32 of them in
 * flight; else all of those would run before a request got its turn.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestStore, type TestStore } from "../../../harness/databases.js";
import { queuedJob } from "../../../harness/queued-job.js";
import { sampleRecord, sampleStatus } from "../../../harness/sample-record.js";
import type { Checker } from "../../../src/service/checking/checker.js";
import { JobRunner } from "../../../src/service/jobs/job-runner.js";

const DAY_MS = 86_400_000;
const ITEMS = 400;

describe("JobRunner", () => {
  let db: TestStore;
  let runner: JobRunner | undefined;
  beforeEach(async () => {
    db = await openTestStore("sqlite");
  });
  afterEach(async () => {
    await runner?.stop();
    await db.cleanup();
  });

  it("starts at most 8 checks between two turns of the event loop", async () => {
    const id = await queuedJob(db.store, ITEMS);
    let checks = 0;
    const checker: Pick<Checker, "check"> = {
      check: async () => {
        checks++;
        // Work in microtasks, as a record read from the store and decided.
        for (let step = 0; step < 5; step++) await Promise.resolve();
        const record = sampleRecord();
        return { record, status: sampleStatus(record), cache: "hit" };
      },
    };
    /** Checks started between two turns, as a request sees them. */
    let most = 0;
    let seen = 0;
    let turning = true;
    const turn = () => {
      most = Math.max(most, checks - seen);
      seen = checks;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    runner = new JobRunner({
      jobs: db.store.jobs,
      checker,
      holder: "test",
      retentionMs: DAY_MS,
      everyMs: 10,
      testNames: false,
    });
    runner.start();
    for (let waited = 0; (await db.store.jobs.getJob(id))?.status !== "done"; waited += 20) {
      if (waited > 10_000) throw new Error("the job never ended");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    turning = false;
    expect(checks).toBe(ITEMS);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(8);
  });
});
