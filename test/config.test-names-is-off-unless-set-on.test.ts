import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

it("TEST_NAMES is off by default, on or off when set, and refuses anything else", () => {
  expect(loadConfig({}).testNames).toBe(false);
  expect(loadConfig({ TEST_NAMES: "on" }).testNames).toBe(true);
  expect(loadConfig({ TEST_NAMES: "OFF" }).testNames).toBe(false);
  expect(() => loadConfig({ TEST_NAMES: "yes" })).toThrow(ConfigError);
});
