import { expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import { createMetrics } from "../../src/http/metrics-registry.js";
import type { CacheOutcome, CheckResult } from "../../src/service/checking/checker.js";

function result(cache: CacheOutcome): CheckResult {
  return { record: sampleRecord(), status: "ok", cache };
}

function sampleValue(text: string, series: string): number {
  const line = text.split("\n").find((each) => each.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no ${series} in the scrape`);
  return Number(line.slice(series.length + 1));
}

it("hands every count and duration to the scrape exactly once, past the buffer and across scrapes", async () => {
  const metrics = createMetrics();
  // 2,500 hits (more than two buffers' worth) and 300 misses, scraped part-way through.
  const durations = Array.from({ length: 2_800 }, (_, index) => (index % 7) * 0.0004);
  let expectedSum = 0;
  let expectedUnder1ms = 0;
  for (const [index, seconds] of durations.entries()) {
    if (index === 1_500) await metrics.registry.metrics();
    const cache = index < 2_500 ? "hit" : "miss";
    metrics.observeCheck(result(cache), seconds);
    metrics.countRequest("GET", "/", index % 10 === 0 ? 429 : 200);
    if (cache === "hit") {
      expectedSum += seconds;
      if (seconds <= 0.001) expectedUnder1ms++;
    }
  }
  const text = await metrics.registry.metrics();
  expect(sampleValue(text, 'mailrisk_check_duration_seconds_count{cache="hit"}')).toBe(2_500);
  expect(sampleValue(text, 'mailrisk_check_duration_seconds_count{cache="miss"}')).toBe(300);
  expect(sampleValue(text, 'mailrisk_check_duration_seconds_bucket{le="0.001",cache="hit"}')).toBe(
    expectedUnder1ms,
  );
  expect(sampleValue(text, 'mailrisk_check_duration_seconds_sum{cache="hit"}')).toBeCloseTo(expectedSum, 9);
  expect(sampleValue(text, 'mailrisk_record_cache_total{outcome="hit"}')).toBe(2_500);
  expect(sampleValue(text, 'mailrisk_record_cache_total{outcome="miss"}')).toBe(300);
  expect(sampleValue(text, 'mailrisk_record_cache_total{outcome="stale"}')).toBe(0);
  expect(sampleValue(text, 'mailrisk_http_requests_total{method="GET",route="/",status="200"}')).toBe(2_520);
  expect(sampleValue(text, 'mailrisk_http_requests_total{method="GET",route="/",status="429"}')).toBe(280);

  // Nothing new: a second scrape reports the same totals, nothing counted twice.
  const again = await metrics.registry.metrics();
  expect(sampleValue(again, 'mailrisk_check_duration_seconds_count{cache="hit"}')).toBe(2_500);
  expect(sampleValue(again, 'mailrisk_http_requests_total{method="GET",route="/",status="200"}')).toBe(2_520);
});
