import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

describe("METRICS_TOKEN, METRICS_PORT, METRICS_PUBLIC and TRUST_PROXY", () => {
  it("default to no /metrics on PORT (no token, no port, not public) and no trusted proxy", () => {
    const config = loadConfig({});
    expect([config.metricsToken, config.metricsPort, config.metricsPublic, config.trustProxy]).toEqual([
      null,
      null,
      false,
      false,
    ]);
    expect(loadConfig({ METRICS_PUBLIC: "ON" }).metricsPublic).toBe(true);
  });

  it("take a long token, another port, and a hop count or addresses and ranges", () => {
    const token = "0123456789abcdef0123456789abcdef";
    const config = loadConfig({ METRICS_TOKEN: token, METRICS_PORT: "9464", TRUST_PROXY: "2" });
    expect([config.metricsToken, config.metricsPort, config.trustProxy]).toEqual([token, 9464, 2]);
    expect(loadConfig({ TRUST_PROXY: " 127.0.0.1, 10.0.0.0/8 ,::1,fd00::/8" }).trustProxy).toEqual([
      "127.0.0.1",
      "10.0.0.0/8",
      "::1",
      "fd00::/8",
    ]);
    expect(loadConfig({ TRUST_PROXY: "off" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "0" }).trustProxy).toBe(false);
  });

  it.each([
    [{ METRICS_TOKEN: "short" }, /METRICS_TOKEN must be at least 32 characters/],
    [{ METRICS_TOKEN: "0123456789abcdef 0123456789abcdef" }, /without spaces/],
    [{ METRICS_PUBLIC: "yes" }, /METRICS_PUBLIC must be on or off/],
    [{ METRICS_PORT: "0" }, /METRICS_PORT must be between 1 and 65535/],
    [{ METRICS_PORT: "nine" }, /METRICS_PORT must be a whole number/],
    [{ METRICS_PORT: "8080" }, /METRICS_PORT must differ from PORT \(8080\)/],
    [{ PORT: "9000", METRICS_PORT: "9000" }, /must differ from PORT/],
    [{ TRUST_PROXY: "on" }, /TRUST_PROXY entry "on"/],
    [{ TRUST_PROXY: "10.0.0.0/33" }, /not an IP address or CIDR range/],
    [{ TRUST_PROXY: "proxy.example" }, /not an IP address or CIDR range/],
    [{ TRUST_PROXY: "101" }, /TRUST_PROXY must be between 0 and 100/],
  ])("refuse %o", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
