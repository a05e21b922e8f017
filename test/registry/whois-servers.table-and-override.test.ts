import { describe, expect, it } from "vitest";
import { loadRdapBootstrap, loadWhoisServers } from "../../src/data/registry-files.js";
import { rdapBaseUrlFor } from "../../src/registry/rdap-bootstrap.js";
import { parseWhoisServer, parseWhoisServers, whoisServerFor } from "../../src/registry/whois-servers.js";

describe("the bundled WHOIS server table", () => {
  const servers = loadWhoisServers();

  it.each([
    ["example.io", "whois.nic.io"],
    ["example.co", "whois.nic.co"],
    ["example.me", "whois.nic.me"],
    ["www.example.it", "whois.nic.it"],
    ["example.ru", "whois.tcinet.ru"],
  ])("sends %s to %s on port 43", (domain, host) => {
    expect(whoisServerFor(servers, domain)).toEqual({ host, port: 43 });
  });

  it("leaves out registries that publish no creation date", () => {
    expect(whoisServerFor(servers, "example.de")).toBeUndefined();
    expect(whoisServerFor(servers, "example.eu")).toBeUndefined();
  });

  it("lists only TLDs that the bundled RDAP bootstrap does not serve", () => {
    const rdap = loadRdapBootstrap();
    const served = [...servers.keys()].filter((tld) => rdapBaseUrlFor(rdap, `example.${tld}`) !== undefined);
    expect(served).toEqual([]);
  });
});

describe("parseWhoisServers", () => {
  it("reads `tld server[:port]` lines and skips comments", () => {
    const table = parseWhoisServers(
      "# source: test\n\n.Alpha whois.alpha.test # trailing\nbeta 127.0.0.1:4343\n",
    );
    expect([...table]).toEqual([
      ["alpha", { host: "whois.alpha.test", port: 43 }],
      ["beta", { host: "127.0.0.1", port: 4343 }],
    ]);
  });

  it.each([["alpha"], ["alpha whois.alpha.test extra"], ["alpha whois:99999"]])(
    "refuses the line %j",
    (line) => {
      expect(() => parseWhoisServers(line)).toThrow();
    },
  );
});

describe("parseWhoisServer (WHOIS_SERVER)", () => {
  it.each([
    ["whois.example.test", { host: "whois.example.test", port: 43 }],
    ["whois.example.test:4343", { host: "whois.example.test", port: 4343 }],
    ["127.0.0.1:4343", { host: "127.0.0.1", port: 4343 }],
    ["[::1]:4343", { host: "::1", port: 4343 }],
    ["[2001:db8::1]", { host: "2001:db8::1", port: 43 }],
  ])("reads %s", (value, expected) => {
    expect(parseWhoisServer(value)).toEqual(expected);
  });

  it.each([[""], ["host:"], ["host:0"], ["host:70000"], ["::1:43"], ["a b"]])("refuses %j", (value) => {
    expect(() => parseWhoisServer(value)).toThrow();
  });
});
