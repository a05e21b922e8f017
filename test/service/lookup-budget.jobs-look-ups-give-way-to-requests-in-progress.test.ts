/**
 * The jobs' look-ups give way to the API (docs/jobs.md "Headroom"): while a checking
 * request is in progress, a job's look-up waits before it starts, and an API caller's
 * look-up starts at once; once the requests have answered, the job's goes.
 */
import { expect, it } from "vitest";
import { LookupBudget } from "../../src/service/lookup-budget.js";

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
