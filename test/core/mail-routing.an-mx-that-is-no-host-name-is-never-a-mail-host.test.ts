/**
 * DNS carries any byte in a name: an MX exchange like `=cmd|'/Ccalc'!A0.evil.org` is no
 * host name (letters, digits, hyphens, dots; at most 253 characters) and is never taken
 * as a mail host. A domain whose only MX is such a name is judged as one whose MX host is
 * missing; beside a real host it is dropped. Over the loopback DNS server, so the bytes
 * go through the wire and the resolver as they would from the internet.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkInput } from "../../harness/check-input.js";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { Zones } from "../../harness/zones.js";
import type { CheckDeps } from "../../src/core/check.js";
import { isHostName } from "../../src/core/mail-routing.js";
import { TypoIndex } from "../../src/core/typo.js";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";
import { NodeDnsResolver } from "../../src/dns/node-dns-resolver.js";

const FORMULA_HOST = "=cmd|'/Ccalc'!A0.evil.test";

describe("isHostName", () => {
  it.each([
    ["mx.example.com", true],
    ["MX-1.Example.com", true],
    ["a".repeat(253), true],
    ["a".repeat(254), false],
    [FORMULA_HOST, false],
    ["mx example.com", false],
    ["mx_1.example.com", false],
    ["mx.exa\\mple.com", false],
    ["@mx.example.com", false],
    ["", false],
  ])("%s → %s", (name, valid) => {
    expect(isHostName(name)).toBe(valid);
  });
});

describe("an MX exchange that is no host name, over the wire", () => {
  let server: DnsTestServer;
  let deps: CheckDeps;

  beforeAll(async () => {
    server = await startDnsServer(
      new Zones({
        zones: ["test"],
        names: {
          "formula-only.test": { MX: [`10 ${FORMULA_HOST}`], A: ["192.0.2.40"] },
          "formula-beside.test": { MX: [`1 ${FORMULA_HOST}`, "10 mx.good.test"] },
          "mx.good.test": { A: ["192.0.2.41"] },
        },
      }),
    );
    const lists = loadDomainLists();
    deps = {
      lists,
      typos: new TypoIndex(lists.popular),
      resolver: new NodeDnsResolver({ servers: [server.address], timeoutMs: 500 }),
      age: { lookup: async () => null },
      clock: () => new Date("2026-11-27T12:00:00Z"),
      ...TEST_NAMES_ON,
    };
  });
  afterAll(() => server?.close());

  it("is never a mail host: the only MX such a name, the record says the MX is invalid, as for a missing host", async () => {
    const record = await checkInput("someone@formula-only.test", deps);
    expect(record).toMatchObject({ valid: false, block: true, risk: 100, reason: "MX host does not exist" });
    expect(record.mx_host).toBe("");
    expect(record.mx_hosts).toEqual([]);
    expect(JSON.stringify(record)).not.toContain("cmd|");
  });

  it("beside a real host, is dropped and the real host is the mail host", async () => {
    const record = await checkInput("formula-beside.test", deps);
    expect(record.valid).toBe(true);
    expect(record.mx_host).toBe("mx.good.test");
    expect(record.mx_hosts).toEqual(["mx.good.test"]);
    expect(JSON.stringify(record)).not.toContain("cmd|");
  });
});
