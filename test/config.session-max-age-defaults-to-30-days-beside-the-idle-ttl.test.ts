/** SESSION_MAX_AGE (docs/security.md "Sessions"): a session's absolute lifetime, 30 days unless set, a duration like SESSION_TTL. */
import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

it("defaults to 30 days, takes seconds or a duration, and refuses anything else", () => {
  expect(loadConfig({})).toMatchObject({ sessionMaxAgeSeconds: 2_592_000, sessionTtlSeconds: 2_592_000 });
  expect(loadConfig({ SESSION_MAX_AGE: "12h" }).sessionMaxAgeSeconds).toBe(43_200);
  expect(loadConfig({ SESSION_MAX_AGE: "3600" }).sessionMaxAgeSeconds).toBe(3600);
  expect(() => loadConfig({ SESSION_MAX_AGE: "forever" })).toThrow(ConfigError);
  expect(() => loadConfig({ SESSION_MAX_AGE: "0" })).toThrow(ConfigError);
});
