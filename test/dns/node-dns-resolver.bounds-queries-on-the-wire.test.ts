/**
 * A c-ares channel picks each query id by drawing until it finds a free one of 65,536,
 * so with that many queries outstanding it spins forever inside `resolveMx()` and blocks
 * the event loop. NodeDnsResolver keeps at most `maxInFlight` queries on the wire; the
 * rest wait their turn, and each one's deadline starts when it is sent. A deadline the
 * test sets, and its bounds on time, are written for a quiet machine and stretched by the
 * machine's pace (harness/machine-pace.ts); the event loop's turns are a ratio to the
 * run's own time.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { startPace } from "../../harness/machine-pace.js";
import { Zones } from "../../harness/zones.js";
import { NodeDnsResolver } from "../../src/dns/node-dns-resolver.js";

/** The machine's pace when the file starts: it stretches the delay, deadlines and time-outs below, written for a quiet machine. */
const pace = startPace();
/** How long the server waits before answering slow.test: 100 ms on a quiet machine, below every deadline here. */
const SLOW_MS = 100 * pace.atStart;

const zones = new Zones({
  zones: ["test"],
  names: {
    "drop.test": { behaviour: "drop" },
    "slow.test": { A: ["192.0.2.2"], delay: SLOW_MS },
  },
});

let server: DnsTestServer;

beforeAll(async () => {
  server = await startDnsServer(zones);
});
afterAll(() => server.close());

describe("NodeDnsResolver in flight", () => {
  it("sends at most maxInFlight queries at once and the rest in order as slots free", async () => {
    const resolver = new NodeDnsResolver({
      servers: [server.address],
      timeoutMs: Math.ceil(pace.bound(1000)),
      maxInFlight: 4,
    });
    const before = server.queries.total;
    const answers = Promise.all(Array.from({ length: 10 }, () => resolver.a("slow.test")));
    // Once the first four reached the server (their answers come SLOW_MS later).
    await vi.waitFor(() => expect(server.queries.total - before).toBeGreaterThanOrEqual(4), {
      interval: 5,
      timeout: pace.bound(1000),
    });
    expect(resolver.load).toEqual({ inFlight: 4, waiting: 6 });
    expect(server.queries.total - before).toBe(4);
    expect((await answers).every((answer) => answer.ok)).toBe(true);
    expect(resolver.load).toEqual({ inFlight: 0, waiting: 0 });
  });

  it("starts a waiting query's deadline when it is sent, not when it was asked", async () => {
    // 200 ms on a quiet machine: twice the slow answer's delay.
    const resolver = new NodeDnsResolver({
      servers: [server.address],
      timeoutMs: Math.ceil(pace.bound(200)),
      maxInFlight: 1,
    });
    const first = resolver.a("drop.test");
    const second = resolver.a("slow.test");
    expect(await first).toEqual({ ok: false, code: "timeout" });
    // Asked a deadline before it was sent, answered SLOW_MS after: inside its own deadline.
    expect((await second).ok).toBe(true);
  });

  it(
    "answers 70,000 queries asked at once, more than a channel has query ids, without blocking",
    async () => {
      const resolver = new NodeDnsResolver({
        servers: [server.address],
        timeoutMs: Math.ceil(pace.bound(5000)),
      });
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
    },
    pace.bound(60_000),
  );
});
