/**
 * Prometheus metrics of one app instance, in its own registry (no global state, so
 * several apps in one process — tests — never share counters).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { isTemporaryFailure } from "../core/verdict.js";
import type { Checker, CheckerLoad, CheckResult } from "../service/checker.js";

export interface HttpMetrics {
  registry: Registry;
  /** One answered request, labelled by route pattern (never the raw URL) and status. */
  countRequest(method: string, route: string, status: number): void;
  /** One finished check: its latency, cache outcome, and a DNS error when a fresh lookup failed. */
  observeCheck(result: CheckResult, seconds: number): void;
}

const RESOLVER_STATES = ["ok", "broken", "unreachable"] as const;

/** The checker's side of the metrics: the resolver canary and the bounded queues. */
export type CheckerGauges = Pick<Checker, "resolverHealth" | "load">;

export function createMetrics(checker: CheckerGauges = {}): HttpMetrics {
  const { resolverHealth } = checker;
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
  const loadGauge = (name: string, help: string, read: (load: CheckerLoad) => Record<string, number>) =>
    new Gauge({
      name,
      help,
      labelNames: ["state"] as const,
      registers: [registry],
      collect() {
        const load = checker.load?.();
        if (load) for (const [state, value] of Object.entries(read(load))) this.set({ state }, value);
      },
    });
  loadGauge(
    "mailrisk_lookups",
    "Look-ups holding a slot of the look-up budget (running) and waiting for one (waiting); callers' look-ups and background refreshes together.",
    (load) => ({ running: load.lookupsRunning, waiting: load.lookupsWaiting }),
  );
  loadGauge(
    "mailrisk_dns_queries",
    "DNS queries on the wire (in_flight) and waiting for one of the resolver's slots (waiting).",
    (load) => ({ in_flight: load.dnsInFlight, waiting: load.dnsWaiting }),
  );
  new Gauge({
    name: "mailrisk_background_refreshes",
    help: "Background refreshes of stale records waiting or running (at most half the look-up budget).",
    registers: [registry],
    collect() {
      const load = checker.load?.();
      if (load) this.set(load.refreshes);
    },
  });
  new Counter({
    name: "mailrisk_observations_dropped_total",
    help: "Observations of traffic (recent domains, infrastructure evidence) dropped because the database could not keep up.",
    registers: [registry],
    collect() {
      const load = checker.load?.();
      if (!load) return;
      this.reset();
      this.inc(load.observationsDropped);
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
  // Children bound to their labels once: prom-client hashes a labels object on every call,
  // and these run on every request. Routes are patterns, so the set stays small.
  const requestsBy = new Map<string, Counter.Internal>();
  const byOutcome = {
    hit: { duration: checkDuration.labels("hit"), count: cache.labels("hit") },
    stale: { duration: checkDuration.labels("stale"), count: cache.labels("stale") },
    miss: { duration: checkDuration.labels("miss"), count: cache.labels("miss") },
  };

  return {
    registry,
    countRequest(method, route, status) {
      const key = `${method} ${status} ${route}`;
      let child = requestsBy.get(key);
      if (!child) {
        child = requests.labels(method, route, String(status));
        requestsBy.set(key, child);
      }
      child.inc();
    },
    observeCheck(result, seconds) {
      const outcome = byOutcome[result.cache];
      outcome.duration.observe(seconds);
      outcome.count.inc();
      if (result.cache === "miss" && isTemporaryFailure(result.status)) {
        dnsErrors.inc({ reason: result.record.reason });
      }
    },
  };
}
