/**
 * The settings of a public instance's fairness: PAGE_GLOBAL_RATE_LIMIT (6,000),
 * PAGE_LOOKUP_CONCURRENCY (16), BULK_CONCURRENT_PER_KEY (2), BULK_CONCURRENT_TOTAL (8),
 * each a bounded whole number, and RECENT_FROM_API (off); anything else fails the start.
 */
import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

it("has defaults for a public instance", () => {
  expect(loadConfig({})).toMatchObject({
    pageGlobalRateLimit: 6000,
    pageLookupConcurrency: 16,
    bulkConcurrentPerKey: 2,
    bulkConcurrentTotal: 8,
    recentFromApi: false,
  });
});

it.each([
  ["PAGE_GLOBAL_RATE_LIMIT", "pageGlobalRateLimit", 1, 10_000_000],
  ["PAGE_LOOKUP_CONCURRENCY", "pageLookupConcurrency", 1, 1000],
  ["BULK_CONCURRENT_PER_KEY", "bulkConcurrentPerKey", 1, 1000],
  ["BULK_CONCURRENT_TOTAL", "bulkConcurrentTotal", 1, 10_000],
] as const)("%s takes %i–%i", (variable, field, min, max) => {
  expect(loadConfig({ [variable]: String(min) })[field]).toBe(min);
  expect(loadConfig({ [variable]: String(max) })[field]).toBe(max);
  for (const bad of [String(min - 1), String(max + 1), "2.5", "many"]) {
    expect(() => loadConfig({ [variable]: bad }), bad).toThrow(ConfigError);
  }
});

it("RECENT_FROM_API takes on or off", () => {
  expect(loadConfig({ RECENT_FROM_API: "ON" }).recentFromApi).toBe(true);
  expect(loadConfig({ RECENT_FROM_API: "off" }).recentFromApi).toBe(false);
  expect(() => loadConfig({ RECENT_FROM_API: "yes" })).toThrow(ConfigError);
});
