import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

const CWD = "/srv/app";

describe("loadConfig", () => {
  it("defaults STATE_DIR to ./var and the database to SQLite in it", () => {
    const config = loadConfig({}, CWD);
    expect(config.stateDir).toBe("/srv/app/var");
    expect(config.database).toEqual({
      dialect: "sqlite",
      path: "/srv/app/var/mailrisk.db",
      createDirectory: true,
    });
    expect(config.rdapBootstrapFile).toBeNull();
    expect(config.whoisServer).toBeNull();
  });

  it("resolves STATE_DIR and RDAP_BOOTSTRAP_FILE against the working directory", () => {
    const config = loadConfig({ STATE_DIR: "state", RDAP_BOOTSTRAP_FILE: "etc/dns.json" }, CWD);
    expect(config.stateDir).toBe("/srv/app/state");
    expect(config.database).toMatchObject({ path: "/srv/app/state/mailrisk.db" });
    expect(config.rdapBootstrapFile).toBe("/srv/app/etc/dns.json");
  });

  it("parses DATABASE_URL once, into the location the store opens", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://u@db/mr" }, CWD).database).toEqual({
      dialect: "postgres",
      connectionString: "postgres://u@db/mr",
    });
    expect(loadConfig({ DATABASE_URL: "sqlite:/tmp/x.db" }, CWD).database).toEqual({
      dialect: "sqlite",
      path: "/tmp/x.db",
    });
  });

  it.each([
    "mysql://db/mr",
    "sqlite:",
    "./mailrisk.db",
    "postgres://u:pa#ss@db/mr",
    "postgres://u:secretpw@[db/mr",
    "postgresql://:99999/mr",
  ])("refuses DATABASE_URL=%s with a ConfigError that does not echo it", (url) => {
    expect(() => loadConfig({ DATABASE_URL: url }, CWD)).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: url }, CWD)).toThrow(/^DATABASE_URL /);
    expect(() => loadConfig({ DATABASE_URL: url }, CWD)).not.toThrow(/secretpw|pa#ss/);
  });

  it.each([
    ["whois.example", { host: "whois.example", port: 43 }],
    ["127.0.0.1:4343", { host: "127.0.0.1", port: 4343 }],
    ["[::1]:4343", { host: "::1", port: 4343 }],
  ])("parses WHOIS_SERVER=%s once", (value, server) => {
    expect(loadConfig({ WHOIS_SERVER: value }, CWD).whoisServer).toEqual(server);
  });

  it.each(["whois.example:0", "whois.example:70000", "a b", "http://whois.example", "[::1"])(
    "refuses WHOIS_SERVER=%s with a ConfigError",
    (value) => {
      expect(() => loadConfig({ WHOIS_SERVER: value }, CWD)).toThrow(ConfigError);
      expect(() => loadConfig({ WHOIS_SERVER: value }, CWD)).toThrow(/WHOIS_SERVER must be host\[:port\]/);
    },
  );
});
