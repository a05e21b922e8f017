/** JOB_MAX_ITEMS, JOB_MAX_BYTES and JOB_RETENTION: their defaults, their forms and bounds, else the start fails. */
import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

it("defaults to 1,000,000 items, 100 MB and 7 days", () => {
  const config = loadConfig({});
  expect(config.jobMaxItems).toBe(1_000_000);
  expect(config.jobMaxBytes).toBe(100_000_000);
  expect(config.jobRetentionSeconds).toBe(7 * 86_400);
});

it("takes sizes in bytes or decimal units, and durations", () => {
  expect(loadConfig({ JOB_MAX_BYTES: "2GB" }).jobMaxBytes).toBe(2_000_000_000);
  expect(loadConfig({ JOB_MAX_BYTES: "512 kB" }).jobMaxBytes).toBe(512_000);
  expect(loadConfig({ JOB_MAX_BYTES: "1000" }).jobMaxBytes).toBe(1000);
  expect(loadConfig({ JOB_MAX_ITEMS: "1" }).jobMaxItems).toBe(1);
  expect(loadConfig({ JOB_RETENTION: "12h" }).jobRetentionSeconds).toBe(43_200);
  for (const bad of ["0", "101GB", "lots", "1.5MB", "-1"]) {
    expect(() => loadConfig({ JOB_MAX_BYTES: bad }), bad).toThrow(ConfigError);
  }
  for (const bad of ["0", "100000001", "1e6"]) {
    expect(() => loadConfig({ JOB_MAX_ITEMS: bad }), bad).toThrow(ConfigError);
  }
  expect(() => loadConfig({ JOB_RETENTION: "a week" })).toThrow(ConfigError);
});
