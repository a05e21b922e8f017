/** PUBLISHABLE_RATE_LIMIT: 30 requests per minute by default, a whole number from 1 to 1,000,000, else the start fails. */
import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

it("defaults to 30 and takes 1–1,000,000", () => {
  expect(loadConfig({}).publishableRateLimit).toBe(30);
  expect(loadConfig({ PUBLISHABLE_RATE_LIMIT: "1" }).publishableRateLimit).toBe(1);
  expect(loadConfig({ PUBLISHABLE_RATE_LIMIT: "1000000" }).publishableRateLimit).toBe(1_000_000);
  for (const bad of ["0", "1000001", "-1", "2.5", "many"]) {
    expect(() => loadConfig({ PUBLISHABLE_RATE_LIMIT: bad }), bad).toThrow(ConfigError);
  }
});
