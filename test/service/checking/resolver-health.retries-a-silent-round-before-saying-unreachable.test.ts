/**
 * The canary asks again before it declares the resolver down (docs/operations.md
 * "Readiness"): a round with no answer at all (time-outs) is retried twice after a short
 * pause, so one late answer on a loaded machine does not make /readyz a 503 for a whole
 * interval; a resolver that never answers is unreachable after three rounds, and one that
 * denies the canaries is broken at once (it answers; retrying would not help). While the
 * resolver is not sound the next probe comes after 5 s, not the whole interval.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { type DnsAnswer, type DnsResolver, dnsFailure, type MxAnswer } from "../../../src/core/dns.js";
import { ResolverHealth } from "../../../src/service/checking/resolver-health.js";

const CANARIES = ["gmail.com", "outlook.com"];

/** Answers MX from round `answersFrom` on (a round: one question per canary), time-outs before; `denies`: NXDOMAIN. */
function resolverOf(answersFrom: number, denies = false): DnsResolver & { asked: () => number } {
  let asked = 0;
  const mx = async (): Promise<DnsAnswer<MxAnswer>> => {
    const round = Math.floor(asked++ / CANARIES.length);
    if (denies) return dnsFailure("nxdomain");
    return round >= answersFrom
      ? { ok: true, records: [{ exchange: "mx.example", priority: 10 }] }
      : dnsFailure("timeout");
  };
  const none = async () => dnsFailure("timeout");
  return { mx, a: none, aaaa: none, ns: none, asked: () => asked };
}

const health = (resolver: DnsResolver) =>
  new ResolverHealth({ resolver, canaries: CANARIES, retryPauseMs: 10 });

describe("the resolver canary", () => {
  it("is ok when the third round answers after two silent ones", async () => {
    const resolver = resolverOf(2);
    expect((await health(resolver).probe()).state).toBe("ok");
    expect(resolver.asked()).toBe(3 * CANARIES.length);
  });

  it("is unreachable only after three silent rounds", async () => {
    const resolver = resolverOf(Number.POSITIVE_INFINITY);
    const report = await health(resolver).probe();
    expect(report.state).toBe("unreachable");
    expect(report.canaries).toEqual({ "gmail.com": "timeout", "outlook.com": "timeout" });
    expect(resolver.asked()).toBe(3 * CANARIES.length);
  });

  it("says broken after one round when the resolver denies the canaries", async () => {
    const resolver = resolverOf(0, true);
    expect((await health(resolver).probe()).state).toBe("broken");
    expect(resolver.asked()).toBe(CANARIES.length);
  });

  describe("while the resolver is not sound", () => {
    afterEach(() => vi.useRealTimers());

    it("probes again after 5 s instead of the interval, and at the interval once sound", async () => {
      vi.useFakeTimers();
      // Unreachable for the first probe (three rounds), then answering.
      const resolver = resolverOf(3);
      const canary = new ResolverHealth({
        resolver,
        canaries: CANARIES,
        retryPauseMs: 10,
        intervalMs: 60_000,
      });
      canary.start();
      await vi.advanceTimersByTimeAsync(100);
      expect(canary.latest()?.state).toBe("unreachable");
      await vi.advanceTimersByTimeAsync(5_000);
      expect(canary.latest()?.state).toBe("ok");
      const asked = resolver.asked();
      await vi.advanceTimersByTimeAsync(30_000);
      expect(resolver.asked()).toBe(asked);
      await canary.stop();
    });
  });
});
