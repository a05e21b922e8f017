import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";
import { connectionCap, openFileLimit } from "../src/http/connection-limits.js";

describe("MAX_CONNECTIONS and MAX_CONNECTIONS_PER_CLIENT", () => {
  it("default to the open-file limit at start-up, and 256 per client unless behind a trusted proxy", () => {
    const config = loadConfig({});
    expect([config.maxConnections, config.maxConnectionsPerClient]).toEqual([null, 256]);
    expect(loadConfig({ TRUST_PROXY: "1" }).maxConnectionsPerClient).toBeNull();
    expect(loadConfig({ TRUST_PROXY: "1", MAX_CONNECTIONS_PER_CLIENT: "50" }).maxConnectionsPerClient).toBe(
      50,
    );
    expect(loadConfig({ MAX_CONNECTIONS_PER_CLIENT: "Off" }).maxConnectionsPerClient).toBeNull();
    expect(loadConfig({ MAX_CONNECTIONS: "2000" }).maxConnections).toBe(2000);
  });

  it.each([
    [{ MAX_CONNECTIONS: "0" }, /MAX_CONNECTIONS must be between 1 and 1000000/],
    [{ MAX_CONNECTIONS: "many" }, /MAX_CONNECTIONS must be a whole number/],
    [{ MAX_CONNECTIONS_PER_CLIENT: "-1" }, /MAX_CONNECTIONS_PER_CLIENT must be a whole number/],
  ])("refuses %o", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    // configured, open-file limit, in force
    [null, 4096, 3584],
    [null, 20_000, 19_488],
    [null, 1024, 512],
    [null, 256, 128],
    [null, null, 1000],
    [3000, 4096, 3000],
    [3584, 4096, 3584],
    [50_000, null, 50_000],
  ])("MAX_CONNECTIONS %s under an open-file limit of %s holds %s", (configured, limit, cap) => {
    expect(connectionCap(configured, limit)).toBe(cap);
  });

  it("fails the start when MAX_CONNECTIONS leaves too few descriptors", () => {
    expect(() => connectionCap(4000, 4096)).toThrow(ConfigError);
    expect(() => connectionCap(4000, 4096)).toThrow(/set at most 3584, or raise the limit/);
  });

  it("reads the soft open-file limit", () => {
    const limits = [
      "Limit                     Soft Limit           Hard Limit           Units     ",
      "Max processes             63704                63704                processes ",
      "Max open files            4096                 524288               files     ",
    ].join("\n");
    expect(openFileLimit(() => limits)).toBe(4096);
    expect(
      openFileLimit(() => "Max open files            unlimited            unlimited            files"),
    ).toBeNull();
    expect(
      openFileLimit(() => {
        throw new Error("ENOENT");
      }),
    ).toBeNull();
  });
});

describe("PUBLIC_URL", () => {
  it("is unset by default and kept without a trailing slash", () => {
    expect(loadConfig({}).publicUrl).toBeNull();
    expect(loadConfig({ PUBLIC_URL: "https://mailrisk.example.org/" }).publicUrl).toBe(
      "https://mailrisk.example.org",
    );
    expect(loadConfig({ PUBLIC_URL: "http://example.org:8080/mailrisk/" }).publicUrl).toBe(
      "http://example.org:8080/mailrisk",
    );
  });

  it.each([
    ["mailrisk.example.org", /PUBLIC_URL must be a URL/],
    ["ftp://example.org", /must be an http or https URL/],
    ["https://example.org/?a=1", /without credentials, query or fragment/],
    ["https://user:pw@example.org", /without credentials, query or fragment/],
  ])("refuses %s", (value, message) => {
    expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(message);
  });
});
