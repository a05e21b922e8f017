import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

it("ACCESS_LOG is sampled by default and takes off and all", () => {
  expect(loadConfig({}).accessLog).toBe("sampled");
  expect(loadConfig({ ACCESS_LOG: "off" }).accessLog).toBe("off");
  expect(loadConfig({ ACCESS_LOG: "all" }).accessLog).toBe("all");
});

it.each(["on", "ALL", "batched"])("ACCESS_LOG=%s is refused, naming the choices", (value) => {
  expect(() => loadConfig({ ACCESS_LOG: value })).toThrow(ConfigError);
  expect(() => loadConfig({ ACCESS_LOG: value })).toThrow(/off, sampled, all/);
});
