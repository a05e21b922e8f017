import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { writeBootstrap } from "../../harness/loopback-registries.js";
import { BUNDLED_RDAP_BOOTSTRAP_FILE, loadRdapBootstrap } from "../../src/data/registry-files.js";
import {
  formatRdapBootstrapFile,
  parseRdapBootstrapFile,
  RdapBootstrapError,
  rdapBaseUrlFor,
  rdapBootstrapTable,
} from "../../src/registry/rdap-bootstrap.js";

describe("the bundled RDAP bootstrap", () => {
  const bundled = loadRdapBootstrap();

  it("is an IANA-format file with a publication date and a source", () => {
    const file = parseRdapBootstrapFile(JSON.parse(readFileSync(BUNDLED_RDAP_BOOTSTRAP_FILE, "utf8")));
    expect(file.version).toBe("1.0");
    expect(Number.isNaN(Date.parse(file.publication))).toBe(false);
    expect(file.description).toMatch(/freewhois@/);
    expect(bundled.size).toBeGreaterThan(1000);
  });

  it.each([
    ["example.com", "https://rdap.verisign.com/com/v1/"],
    ["example.net", "https://rdap.verisign.com/net/v1/"],
    ["example.org", "https://rdap.publicinterestregistry.org/rdap/"],
    ["EXAMPLE.DEV", "https://www.registry.google/rdap/"],
  ])("routes %s to %s", (domain, url) => {
    expect(rdapBaseUrlFor(bundled, domain)).toBe(url);
  });

  it("has no route for TLDs without RDAP", () => {
    expect(rdapBaseUrlFor(bundled, "example.de")).toBeUndefined();
    expect(rdapBaseUrlFor(bundled, "example.invalid")).toBeUndefined();
  });
});

describe("an RDAP bootstrap table", () => {
  const file = parseRdapBootstrapFile({
    version: "1.0",
    publication: "2026-11-01T00:00:00Z",
    services: [
      [
        ["alpha", "Beta"],
        ["http://rdap.alpha.test/", "https://rdap.alpha.test/"],
      ],
      [["co.alpha"], ["https://rdap.co-alpha.test/rdap"]],
    ],
  });
  const table = rdapBootstrapTable(file);

  it("prefers https and keeps http as the next choice", () => {
    expect(table.get("alpha")).toEqual(["https://rdap.alpha.test/", "http://rdap.alpha.test/"]);
  });

  it("matches TLDs case-insensitively and takes the longest listed suffix", () => {
    expect(rdapBaseUrlFor(table, "www.example.BETA")).toBe("https://rdap.alpha.test/");
    expect(rdapBaseUrlFor(table, "example.co.alpha")).toBe("https://rdap.co-alpha.test/rdap");
    expect(rdapBaseUrlFor(table, "example.alpha")).toBe("https://rdap.alpha.test/");
  });

  it("round-trips through its file format", () => {
    expect(parseRdapBootstrapFile(JSON.parse(formatRdapBootstrapFile(file)))).toEqual(file);
  });

  it("loads from the file RDAP_BOOTSTRAP_FILE names", async () => {
    const path = await writeBootstrap({ loopback: "http://127.0.0.1:9/rdap/" });
    expect(rdapBaseUrlFor(loadRdapBootstrap(path), "a.loopback")).toBe("http://127.0.0.1:9/rdap/");
  });

  it("fails loudly on a missing file", () => {
    expect(() => loadRdapBootstrap("/nonexistent/dns.json")).toThrow(RdapBootstrapError);
  });
});

describe("parseRdapBootstrapFile", () => {
  const good = {
    version: "1.0",
    publication: "2026-11-01T00:00:00Z",
    services: [[["com"], ["https://r.test/"]]],
  };
  it.each([
    ["an array", []],
    ["null", null],
    ["no version", { ...good, version: undefined }],
    ["no publication", { ...good, publication: undefined }],
    ["a publication that is no date", { ...good, publication: "yesterday" }],
    ["no services", { ...good, services: undefined }],
    ["empty services", { ...good, services: [] }],
    ["a service without URLs", { ...good, services: [[["com"], []]] }],
    ["a service with only ftp URLs", { ...good, services: [[["com"], ["ftp://r.test/"]]] }],
    ["a service without TLDs", { ...good, services: [[[], ["https://r.test/"]]] }],
    ["a service of the wrong arity", { ...good, services: [[["com"]]] }],
    ["a TLD that is no string", { ...good, services: [[[1], ["https://r.test/"]]] }],
  ])("refuses %s", (_, json) => {
    expect(() => parseRdapBootstrapFile(json)).toThrow(RdapBootstrapError);
  });

  it("accepts IANA's shape", () => {
    expect(parseRdapBootstrapFile(good).services).toEqual(good.services);
  });
});
