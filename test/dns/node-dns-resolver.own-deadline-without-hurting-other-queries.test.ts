import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { startPace } from "../../harness/machine-pace.js";
import { Zones } from "../../harness/zones.js";
import type { DnsAnswer } from "../../src/core/dns.js";
import { NodeDnsResolver } from "../../src/dns/node-dns-resolver.js";

/**
 * The machine's pace when the file starts. The deadline, the slow answer's delay and the
 * bounds on time are written for a quiet machine and stretched by it: on a loaded one an
 * answering name still answers before the deadline, and a dropped one still times out at it.
 */
const pace = startPace();
const QUIET_TIMEOUT_MS = 300;
const TIMEOUT_MS = Math.ceil(QUIET_TIMEOUT_MS * pace.atStart);

const zones = new Zones({
  zones: ["test"],
  names: {
    "drop.test": { behaviour: "drop" },
    "drop-mx.test": { A: ["192.0.2.1"], behaviour: { MX: "drop" } },
    "slow.test": { A: ["192.0.2.2"], delay: 150 * pace.atStart },
    "servfail.test": { behaviour: "servfail" },
    ...Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`host${i}.test`, { A: [`198.51.100.${i + 1}`] }]),
    ),
  },
});

let server: DnsTestServer;

beforeAll(async () => {
  server = await startDnsServer(zones);
});
afterAll(() => server.close());

function fresh(): NodeDnsResolver {
  return new NodeDnsResolver({ servers: [server.address], timeoutMs: TIMEOUT_MS });
}

async function codeOf(query: Promise<DnsAnswer<unknown>>): Promise<string> {
  const answer = await query;
  return answer.ok ? "answer" : answer.code;
}

describe("NodeDnsResolver deadline", () => {
  it("times out an unanswered query at its own deadline, far below c-ares' retry schedule", async () => {
    const resolver = fresh();
    const started = performance.now();
    const code = await codeOf(resolver.mx("drop.test"));
    const elapsed = performance.now() - started;
    expect(code).toBe("timeout");
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(elapsed).toBeLessThan(pace.bound(QUIET_TIMEOUT_MS + 500));
  });

  it("keeps NXDOMAIN, SERVFAIL and timeout apart when asked together", async () => {
    const resolver = fresh();
    const codes = await Promise.all([
      codeOf(resolver.a("drop.test")),
      codeOf(resolver.a("servfail.test")),
      codeOf(resolver.a("missing.test")),
      codeOf(resolver.mx("drop-mx.test")),
      codeOf(resolver.a("drop-mx.test")),
    ]);
    expect(codes).toEqual(["timeout", "servfail", "nxdomain", "timeout", "answer"]);
  });

  it("lets queries sharing the resolver finish while one of them times out", async () => {
    const resolver = fresh();
    const dropped = codeOf(resolver.a("drop.test"));
    // Asked before the deadline (so on the same c-ares channel), answered after it.
    await sleep(TIMEOUT_MS - 100 * pace.atStart);
    const slow = resolver.a("slow.test");
    const quick = Promise.all(Array.from({ length: 40 }, (_, i) => resolver.a(`host${i}.test`)));
    expect(await dropped).toBe("timeout");
    expect(await slow).toEqual({ ok: true, records: ["192.0.2.2"] });
    expect((await quick).flatMap((answer) => (answer.ok ? answer.records : []))).toHaveLength(40);
    // And the resolver keeps working after the timeout.
    expect(await resolver.a("host0.test")).toEqual({ ok: true, records: ["198.51.100.1"] });
  });

  it("cancels an abandoned query instead of letting c-ares retry it in the background", async () => {
    const resolver = fresh();
    server.queries.clear();
    expect(await codeOf(resolver.a("drop.test"))).toBe("timeout");
    // A retry c-ares sent right at the deadline may still be on its way.
    await sleep(100 * pace.atStart);
    const askedByDeadline = server.queries.count("drop.test");
    // Without the cancel, c-ares would retry (tries: 3) within this wait.
    await sleep(3 * TIMEOUT_MS);
    expect(askedByDeadline).toBeGreaterThanOrEqual(1);
    expect(server.queries.count("drop.test")).toBe(askedByDeadline);
  });

  it("handles many timeouts at once without failing the answers among them", async () => {
    const resolver = fresh();
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        codeOf(i % 2 === 0 ? resolver.a("drop.test") : resolver.a(`host${i % 40}.test`)),
      ),
    );
    expect(results.filter((code) => code === "timeout")).toHaveLength(100);
    expect(results.filter((code) => code === "answer")).toHaveLength(100);
    expect(performance.now() - started).toBeLessThan(pace.bound(QUIET_TIMEOUT_MS + 700));
  });
});
