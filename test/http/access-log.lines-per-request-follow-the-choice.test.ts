import { afterEach, expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import { SAMPLE_EVERY } from "../../src/http/access-log.js";
import { capturedLogger, fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture | undefined;
afterEach(() => fixture?.close());

/** `count` cached checks with a good key, one failing check (500), then the log's lines per message. */
async function linesAfterChecks(accessLog: "off" | "sampled" | "all", count: number) {
  const { lines, logger } = capturedLogger();
  let fail = false;
  const checker = fakeChecker((input) => {
    if (fail) throw new Error("lookup broke");
    return { record: sampleRecord({ domain: input.domain }), cache: "hit" };
  });
  fixture = await openHttpFixture({ logger, checker, accessLog });
  const { secret } = await fixture.newKey();
  for (let i = 0; i < count; i++) {
    const answer = await fixture.app.inject({
      url: "/?domain=example.com",
      headers: { "x-gateway-key": secret },
    });
    expect(answer.statusCode).toBe(200);
  }
  fail = true;
  const failed = await fixture.app.inject({
    url: "/?domain=example.com",
    headers: { "x-gateway-key": secret },
  });
  expect(failed.statusCode).toBe(500);
  const entries = lines.map((line) => JSON.parse(line) as { msg: string; res?: { statusCode: number } });
  return {
    incoming: entries.filter((entry) => entry.msg === "incoming request").length,
    completed: entries.filter((entry) => entry.msg === "request completed"),
    errors: entries.filter((entry) => entry.msg === "unhandled error").length,
  };
}

it("ACCESS_LOG=all writes two lines for every request", async () => {
  const { incoming, completed, errors } = await linesAfterChecks("all", 5);
  expect(incoming).toBe(6);
  expect(completed).toHaveLength(6);
  expect(errors).toBe(1);
});

it("ACCESS_LOG=sampled writes one line for the first request of every hundred and for every 5xx", async () => {
  const { incoming, completed, errors } = await linesAfterChecks("sampled", SAMPLE_EVERY + 5);
  expect(incoming).toBe(0);
  // Requests 1 and 101 by sample, and the failed one.
  expect(completed.map((entry) => entry.res?.statusCode)).toEqual([200, 200, 500]);
  expect(errors).toBe(1);
});

it("ACCESS_LOG=off writes no line per request, and still logs a failed check's error", async () => {
  const { incoming, completed, errors } = await linesAfterChecks("off", 5);
  expect(incoming).toBe(0);
  expect(completed).toHaveLength(0);
  expect(errors).toBe(1);
});
