import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { Zones } from "../../harness/zones.js";
import type { DnsAnswer, DnsFailureCode } from "../../src/core/dns.js";
import { NodeDnsResolver } from "../../src/dns/node-dns-resolver.js";

const zones = new Zones({
  zones: ["test"],
  names: {
    "mixed.test": {
      MX: ["20 mx2.mixed.test", "10 MX1.Mixed.TEST."],
      A: ["192.0.2.1", "192.0.2.2"],
      AAAA: ["2001:db8::1"],
      NS: ["NS1.Mixed.Test."],
    },
    "null-mx.test": { MX: ["0 ."] },
    "web-only.test": { A: ["192.0.2.3"] },
    "servfail.test": { behaviour: "servfail" },
    "refused.test": { behaviour: "refused" },
    "big.test": { A: Array.from({ length: 100 }, (_, i) => `198.51.100.${i + 1}`) },
  },
});

let server: DnsTestServer;
let resolver: NodeDnsResolver;

beforeAll(async () => {
  server = await startDnsServer(zones);
  resolver = new NodeDnsResolver({ servers: [server.address], timeoutMs: 2000 });
});
afterAll(() => server.close());

/** The records of an answer; fails the test for a failure. */
async function records<T>(query: Promise<DnsAnswer<T>>): Promise<T[]> {
  const answer = await query;
  if (!answer.ok) throw new Error(`expected an answer, got ${answer.code}`);
  return answer.records;
}

/** The failure code of a query that must not answer. */
async function failure(query: Promise<DnsAnswer<unknown>>): Promise<DnsFailureCode> {
  const answer = await query;
  if (answer.ok) throw new Error(`expected a failure, got ${JSON.stringify(answer.records)}`);
  return answer.code;
}

describe("NodeDnsResolver over the wire", () => {
  it("returns MX, A, AAAA and NS answers with names lower-cased and without a trailing dot", async () => {
    const mx = await records(resolver.mx("Mixed.TEST"));
    expect(mx.sort((x, y) => x.priority - y.priority)).toEqual([
      { exchange: "mx1.mixed.test", priority: 10 },
      { exchange: "mx2.mixed.test", priority: 20 },
    ]);
    expect((await records(resolver.a("mixed.test"))).sort()).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect(await records(resolver.aaaa("mixed.test"))).toEqual(["2001:db8::1"]);
    expect(await records(resolver.ns("mixed.test"))).toEqual(["ns1.mixed.test"]);
  });

  it("keeps a null MX as exchange ''", async () => {
    expect(await records(resolver.mx("null-mx.test"))).toEqual([{ exchange: "", priority: 0 }]);
  });

  it.each([
    ["nxdomain", "a name that does not exist", () => resolver.mx("does-not-exist.test")],
    ["nodata", "an existing name without the type", () => resolver.mx("web-only.test")],
    ["nodata", "an empty non-terminal", () => resolver.a("test")],
    ["servfail", "SERVFAIL", () => resolver.a("servfail.test")],
    ["refused", "REFUSED", () => resolver.ns("refused.test")],
    ["refused", "a name outside the served zones", () => resolver.a("example.org")],
  ] as const)("settles with the failure %s for %s", async (code, _what, query) => {
    expect(await failure(query())).toBe(code);
  });

  it("asks a SERVFAIL only once (no retries for an answer)", async () => {
    server.queries.clear();
    await failure(resolver.mx("servfail.test"));
    expect(server.queries.count("servfail.test")).toBe(1);
  });

  it("follows a truncated UDP answer over TCP", async () => {
    server.queries.clear();
    const addresses = await records(resolver.a("big.test"));
    expect(addresses).toHaveLength(100);
    expect(server.queries.count("big.test", { transport: "udp" })).toBe(1);
    expect(server.queries.count("big.test", { transport: "tcp" })).toBe(1);
  });

  it("reports a server that is not listening as a failure, not as a timeout or an answer", async () => {
    const gone = await startDnsServer(zones);
    await gone.close();
    const lonely = new NodeDnsResolver({ servers: [gone.address], timeoutMs: 1000 });
    expect(await failure(lonely.a("mixed.test"))).toBe("failure");
  });
});
