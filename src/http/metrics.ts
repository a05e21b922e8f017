/**
 * Prometheus metrics of one app instance, in its own registry (no global state, so
 * several apps in one process — tests — never share counters).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { isTemporaryFailure } from "../core/verdict.js";
import type { CheckResult } from "../service/checker.js";
import type { ResolverHealth } from "../service/resolver-health.js";

export interface HttpMetrics {
  registry: Registry;
  /** One answered request, labelled by route pattern (never the raw URL) and status. */
  countRequest(method: string, route: string, status: number): void;
  /** One finished check: its latency, cache outcome, and a DNS error when a fresh lookup failed. */
  observeCheck(result: CheckResult, seconds: number): void;
}

const RESOLVER_STATES = ["ok", "broken", "unreachable"] as const;

export function createMetrics(resolverHealth?: ResolverHealth): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "mailrisk_" });
  new Gauge({
    name: "mailrisk_dns_resolver_state",
    help: "The DNS canary's last verdict on the resolver: 1 for the current state (ok, broken, unreachable), 0 for the others; none before the first probe.",
    labelNames: ["state"] as const,
    registers: [registry],
    // Summed over a cluster's workers (METRICS_PORT) a state would count workers: 1 when any worker sees it.
    aggregator: "max",
    collect() {
      const state = resolverHealth?.latest()?.state;
      this.reset();
      if (state) for (const each of RESOLVER_STATES) this.set({ state: each }, each === state ? 1 : 0);
    },
  });
  const requests = new Counter({
    name: "mailrisk_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const checkDuration = new Histogram({
    name: "mailrisk_check_duration_seconds",
    help: "Time to produce a check record, by cache outcome (hit, stale, miss).",
    labelNames: ["cache"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const cache = new Counter({
    name: "mailrisk_record_cache_total",
    help: "Checks by record cache outcome (hit, stale, miss).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const dnsErrors = new Counter({
    name: "mailrisk_dns_errors_total",
    help: "Fresh lookups whose record says the DNS failed, by reason.",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  for (const outcome of ["hit", "stale", "miss"]) cache.inc({ outcome }, 0);

  return {
    registry,
    countRequest(method, route, status) {
      requests.inc({ method, route, status: String(status) });
    },
    observeCheck(result, seconds) {
      checkDuration.observe({ cache: result.cache }, seconds);
      cache.inc({ outcome: result.cache });
      if (result.cache === "miss" && isTemporaryFailure(result.status)) {
        dnsErrors.inc({ reason: result.record.reason });
      }
    },
  };
}
