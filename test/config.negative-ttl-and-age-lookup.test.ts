import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

describe("NEGATIVE_TTL and AGE_LOOKUP", () => {
  it("default to one hour and on", () => {
    const config = loadConfig({});
    expect([config.negativeTtlSeconds, config.ageLookup]).toEqual([3600, true]);
  });

  it("take a duration and on/off in any case", () => {
    const config = loadConfig({ NEGATIVE_TTL: "10m", AGE_LOOKUP: "OFF" });
    expect([config.negativeTtlSeconds, config.ageLookup]).toEqual([600, false]);
    expect(loadConfig({ AGE_LOOKUP: "on" }).ageLookup).toBe(true);
  });

  it.each([
    ["NEGATIVE_TTL", "soon"],
    ["NEGATIVE_TTL", "0"],
    ["AGE_LOOKUP", "no"],
  ])("refuse %s=%s", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  });
});
