/** LIST_MAX_ENTRIES: 500,000 by default, a whole number from 1,000 to 5,000,000, else the start fails. */
import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

it("defaults to 500,000 entries and takes 1,000–5,000,000", () => {
  expect(loadConfig({}).listMaxEntries).toBe(500_000);
  expect(loadConfig({ LIST_MAX_ENTRIES: "1000" }).listMaxEntries).toBe(1000);
  expect(loadConfig({ LIST_MAX_ENTRIES: "5000000" }).listMaxEntries).toBe(5_000_000);
  for (const bad of ["999", "5000001", "-1", "2.5", "many"]) {
    expect(() => loadConfig({ LIST_MAX_ENTRIES: bad }), bad).toThrow(ConfigError);
  }
});
