import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fixture,
  type LoopbackRdap,
  type LoopbackWhois,
  manualClock,
  type RdapReply,
  startRdapServer,
  startWhoisServer,
  writeBootstrap,
} from "../../harness/loopback-registries.js";
import { RegistryDomainAgeLookup } from "../../src/registry/registry-domain-age-lookup.js";
import { createDomainAgeLookup } from "../../src/service/checking/domain-age.js";

const RDAP_REPLIES: Record<string, RdapReply> = {
  "registered.rdaptest": { status: 200, body: fixture("rdap/registered.json") },
  "nodate.rdaptest": { status: 200, body: fixture("rdap/no-registration-event.json") },
  "missing.rdaptest": { status: 404, body: fixture("rdap/not-found.json") },
  "garbled.rdaptest": { status: 200, body: fixture("rdap/malformed.json.txt") },
  "broken.rdaptest": { status: 503, body: "" },
};

const WHOIS_ANSWERS: Record<string, string> = {
  "example.whoisonly": fixture("whois/identity-digital-io.txt"),
  "broken.rdaptest": fixture("whois/nominet-registered-on.txt"),
  "garbled.rdaptest": fixture("whois/iis-se-created.txt"),
  "nodate.whoisonly": fixture("whois/denic-no-creation-date.txt"),
};

let rdap: LoopbackRdap;
let whois: LoopbackWhois;
let bootstrapFile: string;

beforeAll(async () => {
  rdap = await startRdapServer((domain) => RDAP_REPLIES[domain] ?? { status: 404 });
  whois = await startWhoisServer((domain) => WHOIS_ANSWERS[domain] ?? "No match\r\n");
  // The base URL without its trailing slash: the client must add it.
  bootstrapFile = await writeBootstrap({ rdaptest: rdap.baseUrl.replace(/\/$/, "") });
});

afterAll(async () => {
  await rdap.close();
  await whois.close();
});

/** RDAP for .rdaptest from RDAP_BOOTSTRAP_FILE; no WHOIS for it unless `whoisServer` is set. */
function lookupWith(whoisServer: LoopbackWhois["server"] | null) {
  return createDomainAgeLookup({
    bootstrapFile,
    whoisServer,
    timeoutMs: 3000,
    clock: manualClock("2026-11-22T12:00:00Z").clock,
  });
}

function countOf(queries: string[], domain: string): number {
  return queries.filter((q) => q === domain).length;
}

describe("domain age over RDAP", () => {
  it("reads the registration date and asks for RDAP JSON", async () => {
    const age = await lookupWith(null).lookup("registered.rdaptest");
    expect(age).toEqual({ createdAt: new Date("1995-08-14T04:00:00Z"), source: "rdap" });
    const index = rdap.queries.indexOf("registered.rdaptest");
    expect(rdap.headers[index]?.accept).toBe("application/rdap+json");
  });

  it("is unknown when the registry answers 404, and does not ask WHOIS then", async () => {
    const before = whois.queries.length;
    expect(await lookupWith(whois.server).lookup("missing.rdaptest")).toBeNull();
    expect(countOf(rdap.queries, "missing.rdaptest")).toBe(1);
    expect(whois.queries.length).toBe(before);
  });

  it("is unknown when the registry states no registration date", async () => {
    expect(await lookupWith(whois.server).lookup("nodate.rdaptest")).toBeNull();
  });

  it("is unknown for malformed JSON when no WHOIS serves the TLD, and remembers that", async () => {
    const lookup = lookupWith(null);
    const before = countOf(rdap.queries, "garbled.rdaptest");
    expect(await lookup.lookup("garbled.rdaptest")).toBeNull();
    expect(await lookup.lookup("garbled.rdaptest")).toBeNull();
    expect(countOf(rdap.queries, "garbled.rdaptest")).toBe(before + 1);
  });

  it("falls back to WHOIS when RDAP failed (malformed JSON, HTTP 503)", async () => {
    const lookup = lookupWith(whois.server);
    expect(await lookup.lookup("garbled.rdaptest")).toEqual({
      createdAt: new Date("2001-02-03T00:00:00Z"),
      source: "whois",
    });
    expect(await lookup.lookup("broken.rdaptest")).toEqual({
      createdAt: new Date("2001-02-03T00:00:00Z"),
      source: "whois",
    });
  });
});

describe("domain age over WHOIS", () => {
  it("asks WHOIS_SERVER for a TLD that has no RDAP", async () => {
    expect(await lookupWith(whois.server).lookup("example.whoisonly")).toEqual({
      createdAt: new Date("2014-02-25T16:43:51Z"),
      source: "whois",
    });
    expect(whois.queries).toContain("example.whoisonly");
    expect(rdap.queries).not.toContain("example.whoisonly");
  });

  it("asks the table's server for a TLD only in WHOIS", async () => {
    const lookup = new RegistryDomainAgeLookup({
      rdap: new Map(),
      whois: new Map([["whoisonly", { host: "127.0.0.1", port: whois.port }]]),
      deadlineMs: 3000,
    });
    expect((await lookup.lookup("Example.WhoisOnly."))?.source).toBe("whois");
    expect(whois.queries.at(-1)).toBe("example.whoisonly");
  });

  it("is unknown when WHOIS states no creation date or knows no server", async () => {
    expect(await lookupWith(whois.server).lookup("nodate.whoisonly")).toBeNull();
    expect(await lookupWith(null).lookup("example.whoisonly")).toBeNull();
  });
});
