/**
 * The checking routes count their requests while in progress, for the list jobs to give
 * way to (docs/jobs.md "Headroom"): a check sees the count raised while it runs, the
 * count falls back once answered (a refused request too), and the jobs' own routes
 * (uploads and downloads that last) are not counted.
 */
import { afterEach, expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import { RequestsInProgress } from "../../src/service/jobs/requests-in-progress.js";
import { directCheck, fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
afterEach(() => fixture.close());

it("counts a check while it runs and not a job's request", async () => {
  const requests = new RequestsInProgress();
  const seen: boolean[] = [];
  const checker = fakeChecker((input) => {
    seen.push(requests.busy());
    return { record: sampleRecord({ domain: input.domain, base_domain: input.domain }), cache: "hit" };
  });
  fixture = await openHttpFixture({ checker, requests });
  const { secret } = await fixture.newKey();
  expect((await directCheck(fixture, secret)).statusCode).toBe(200);
  expect(seen).toEqual([true]);
  expect(requests.busy()).toBe(false);
  // Refused without a key: counted and given back all the same.
  const refused = await fixture.app.inject({
    method: "POST",
    url: "/v2/",
    payload: { domain: "example.com" },
  });
  expect(refused.statusCode).toBe(401);
  expect(requests.busy()).toBe(false);
  // A job's upload is not counted: its hooks never raise the count.
  let raised = false;
  const started = requests.started.bind(requests);
  requests.started = () => {
    raised = true;
    started();
  };
  const listed = await fixture.app.inject({
    method: "GET",
    url: "/v2/jobs",
    headers: { authorization: `Bearer ${secret}` },
  });
  expect(listed.statusCode).toBe(200);
  expect(raised).toBe(false);
  expect((await directCheck(fixture, secret)).statusCode).toBe(200);
  expect(raised).toBe(true);
});
