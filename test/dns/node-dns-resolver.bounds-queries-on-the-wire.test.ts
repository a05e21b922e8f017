/**
 * A c-ares channel picks each query id by drawing until it finds a free one of 65,536,
 * so with that many queries outstanding it spins forever inside `resolveMx()` and blocks
 * the event loop. NodeDnsResolver keeps at most `maxInFlight` queries on the wire; the
 * rest wait their turn, and each one's deadline starts when it is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { Zones } from "../../harness/zones.js";
import { NodeDnsResolver } from "../../src/dns/node-dns-resolver.js";

const zones = new Zones({
  zones: ["test"],
  names: {
    "drop.test": { behaviour: "drop" },
    "slow.test": { A: ["192.0.2.2"], delay: 100 },
  },
});

let server: DnsTestServer;

beforeAll(async () => {
  server = await startDnsServer(zones);
});
afterAll(() => server.close());

describe("NodeDnsResolver in flight", () => {
  it("sends at most maxInFlight queries at once and the rest in order as slots free", async () => {
    const resolver = new NodeDnsResolver({ servers: [server.address], timeoutMs: 1000, maxInFlight: 4 });
    const before = server.queries.total;
    const answers = Promise.all(Array.from({ length: 10 }, () => resolver.a("slow.test")));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(resolver.load).toEqual({ inFlight: 4, waiting: 6 });
    expect(server.queries.total - before).toBe(4);
    expect((await answers).every((answer) => answer.ok)).toBe(true);
    expect(resolver.load).toEqual({ inFlight: 0, waiting: 0 });
  });

  it("starts a waiting query's deadline when it is sent, not when it was asked", async () => {
    const resolver = new NodeDnsResolver({ servers: [server.address], timeoutMs: 200, maxInFlight: 1 });
    const first = resolver.a("drop.test");
    const second = resolver.a("slow.test");
    expect(await first).toEqual({ ok: false, code: "timeout" });
    // Asked 200 ms before it was sent, answered 100 ms after: inside its own deadline.
    expect((await second).ok).toBe(true);
  });

  it("answers 70,000 queries asked at once, more than a channel has query ids, without blocking", async () => {
    const resolver = new NodeDnsResolver({ servers: [server.address], timeoutMs: 5000 });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 100);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 70_000 }, (_, i) => resolver.mx(`missing${i}.test`)),
    );
    const seconds = (performance.now() - started) / 1000;
    clearInterval(ticker);
    expect(answers.filter((answer) => !answer.ok && answer.code === "nxdomain")).toHaveLength(70_000);
    // The event loop kept turning: a timer due every 100 ms fired for most of the run.
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(seconds * 10 * 0.5));
  }, 60_000);
});
