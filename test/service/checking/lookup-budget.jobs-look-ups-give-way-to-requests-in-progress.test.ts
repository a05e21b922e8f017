/**
 * The jobs' look-ups give way to the API (docs/jobs.md "Headroom"): while a checking
 * request is in progress, a job's look-up waits before it starts, and an API caller's
 * look-up starts at once; once the requests have answered, the job's goes.
 */
import { expect, it } from "vitest";
import { LookupBudget } from "../../../src/service/checking/lookup-budget.js";

it("holds a job's look-up while a request is in progress and lets the API's through", async () => {
  let answer = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  let busy = true;
  void answered.then(() => {
    busy = false;
  });
  const budget = new LookupBudget({
    pages: 4,
    jobsGiveWayTo: { busy: () => busy, whenIdle: () => (busy ? answered : Promise.resolve()) },
  });
  const started: string[] = [];
  const job = budget.run(async () => started.push("job"), { budget: "jobs", client: "k1" });
  const api = budget.run(async () => started.push("api"), { budget: "api", client: "k2" });
  await api;
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(started).toEqual(["api"]);
  answer();
  await job;
  expect(started).toEqual(["api", "job"]);
});

it("takes up at most 2 of the jobs' answers between two turns of the event loop", async () => {
  const budget = new LookupBudget({
    pages: 4,
    jobsGiveWayTo: { busy: () => false, whenIdle: async () => {} },
  });
  /** Answers taken up since the last turn, and the most seen between two turns. */
  let since = 0;
  let most = 0;
  let turning = true;
  const turn = () => {
    since = 0;
    if (turning) setImmediate(turn);
  };
  setImmediate(turn);
  const answers = Array.from({ length: 12 }, (_, i) =>
    budget
      .run(async () => i, { budget: "jobs", client: `k${i % 3}` })
      .then((answer) => {
        since++;
        most = Math.max(most, since);
        return answer;
      }),
  );
  expect(await Promise.all(answers)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  turning = false;
  expect(most).toBeGreaterThan(0);
  expect(most).toBeLessThanOrEqual(2);
});
