import { afterEach, expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import { SAMPLE_MS, SampledAccessLog } from "../../src/http/access-log.js";
import { capturedLogger, fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture | undefined;
afterEach(() => fixture?.close());

/**
 * Cached checks with a good key, `count` at each of the clock's times in `at` (ms after
 * the first), one failing check (500), then the log's lines per message.
 */
async function linesAfterChecks(accessLog: "off" | "sampled" | "all", count: number, at: number[] = [0]) {
  const { lines, logger } = capturedLogger();
  let fail = false;
  const checker = fakeChecker((input) => {
    if (fail) throw new Error("lookup broke");
    return { record: sampleRecord({ domain: input.domain }), cache: "hit" };
  });
  fixture = await openHttpFixture({ logger, checker, accessLog });
  const { secret } = await fixture.newKey();
  const { clock } = fixture;
  const start = clock.now().getTime();
  for (const ms of at) {
    clock.set(new Date(start + ms));
    for (let i = 0; i < count; i++) {
      const answer = await fixture.app.inject({
        url: "/?domain=example.com",
        headers: { "x-gateway-key": secret },
      });
      expect(answer.statusCode).toBe(200);
    }
  }
  fail = true;
  const failed = await fixture.app.inject({
    url: "/?domain=example.com",
    headers: { "x-gateway-key": secret },
  });
  expect(failed.statusCode).toBe(500);
  const entries = lines.map(
    (line) => JSON.parse(line) as { msg: string; res?: { statusCode: number }; sampledOneIn?: number },
  );
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

it("ACCESS_LOG=sampled writes a line a second at most, saying how many requests it stands for, and one for every 5xx", async () => {
  // 50 requests at each time: the first line is due at once, the next a second later, not sooner.
  const times = [0, SAMPLE_MS - 1, SAMPLE_MS, SAMPLE_MS + 1, 3 * SAMPLE_MS];
  const { incoming, completed, errors } = await linesAfterChecks("sampled", 50, times);
  expect(incoming).toBe(0);
  expect(completed.map((entry) => [entry.res?.statusCode, entry.sampledOneIn])).toEqual([
    [200, 1],
    // The first request at SAMPLE_MS: itself and the 99 answered without a line before it.
    [200, 100],
    [200, 100],
    [500, 1],
  ]);
  expect(errors).toBe(1);
});

it("ACCESS_LOG=off writes no line per request, and still logs a failed check's error", async () => {
  const { incoming, completed, errors } = await linesAfterChecks("off", 5);
  expect(incoming).toBe(0);
  expect(completed).toHaveLength(0);
  expect(errors).toBe(1);
});

it("ACCESS_LOG=sampled: the fast path hands one request at a time to Fastify for the due line, and another if that one is never answered", () => {
  let now = 0;
  const log = new SampledAccessLog(() => now);
  expect(log.claimLine()).toBe(true);
  // Its line is still to come: the others take the fast path.
  expect(log.claimLine()).toBe(false);
  now = SAMPLE_MS - 1;
  expect(log.claimLine()).toBe(false);
  // The claimed request was never answered (its client went away): the turn is taken again.
  now = SAMPLE_MS;
  expect(log.claimLine()).toBe(true);
  expect(log.claimLine()).toBe(false);
});
