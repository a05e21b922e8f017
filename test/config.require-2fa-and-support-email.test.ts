/** REQUIRE_2FA and SUPPORT_EMAIL (docs/accounts.md): off and unset by default; other values named in the error. */
import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

it("takes off, operators and all for REQUIRE_2FA (any case), and refuses anything else", () => {
  expect(loadConfig({})).toMatchObject({ require2fa: "off", supportEmail: null });
  expect(loadConfig({ REQUIRE_2FA: "operators" }).require2fa).toBe("operators");
  expect(loadConfig({ REQUIRE_2FA: "ALL" }).require2fa).toBe("all");
  expect(() => loadConfig({ REQUIRE_2FA: "yes" })).toThrow(/REQUIRE_2FA must be off, operators or all/);
});

it("takes an email address for SUPPORT_EMAIL and refuses anything else", () => {
  expect(loadConfig({ SUPPORT_EMAIL: "help@example.org" }).supportEmail).toBe("help@example.org");
  expect(() => loadConfig({ SUPPORT_EMAIL: "help desk" })).toThrow(ConfigError);
  expect(() => loadConfig({ SUPPORT_EMAIL: `${"a".repeat(250)}@example.org` })).toThrow(/SUPPORT_EMAIL/);
});
