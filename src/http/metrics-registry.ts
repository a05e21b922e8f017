/**
 * Prometheus metrics of one app instance, in its own registry (no global state, so
 * several apps in one process — tests — never share counters).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { isTemporaryFailure } from "../core/verdict.js";
import type { CacheOutcome, Checker, CheckerLoad, CheckResult } from "../service/checking/checker.js";
import type { ListGauges } from "../service/lists/list-schedule.js";
import type { DeliveryCounts } from "../service/webhooks/webhook-delivery.js";
import type { ConnectionLimit } from "./connection-limits.js";

export interface HttpMetrics {
  registry: Registry;
  /** One answered request, labelled by route pattern (never the raw URL) and status. */
  countRequest(method: string, route: string, status: number): void;
  /** One finished check: its latency, cache outcome, and a DNS error when a fresh lookup failed. */
  observeCheck(result: CheckResult, seconds: number): void;
  /** One connection closed at once because it was over a cap (connection-limits.ts). */
  countRefusedConnection(limit: ConnectionLimit): void;
}

const RESOLVER_STATES = ["ok", "broken", "unreachable"] as const;

/*
 * The request counter, the cache counter and the check-duration histogram change on
 * every request, and prom-client hashes the labels and allocates on every `inc` and
 * `observe`, even a bound child's. So the hot path keeps plain numbers (and a buffer of
 * durations), which the metrics' `collect` hands to prom-client whenever the registry
 * is read: a scrape, or a cluster primary asking its workers (METRICS_PORT).
 */

/** Increments of one labelled counter not yet added to it. */
interface PendingCount<L extends string> {
  labels: Record<L, string>;
  pending: number;
}

function pendingCount<L extends string>(labels: Record<L, string>): PendingCount<L> {
  return { labels, pending: 0 };
}

function addPending<L extends string>(counter: Counter<L>, count: PendingCount<L>): void {
  if (count.pending === 0) return;
  counter.inc(count.labels, count.pending);
  count.pending = 0;
}

/** Observations a histogram child is given at once, when they fill the buffer or the registry is read. */
const OBSERVATIONS_BUFFERED = 1024;

/** Observations of one histogram child not yet given to it. */
class PendingObservations {
  private readonly values = new Float64Array(OBSERVATIONS_BUFFERED);
  private length = 0;

  constructor(private readonly child: Histogram.Internal<string>) {}

  add(value: number): void {
    this.values[this.length++] = value;
    if (this.length === this.values.length) this.flush();
  }

  flush(): void {
    for (let index = 0; index < this.length; index++) this.child.observe(this.values[index] ?? 0);
    this.length = 0;
  }
}

/** The synced lists (docs/data.md, "Synced lists"): entries and age in force, failures by source and reason. */
function listMetrics(registry: Registry, lists: ListGauges): void {
  new Gauge({
    name: "mailrisk_list_entries",
    help: "Entries of each synced list's version in force.",
    labelNames: ["source"] as const,
    registers: [registry],
    aggregator: "max",
    collect() {
      this.reset();
      for (const { source, entries } of lists.states()) this.set({ source }, entries);
    },
  });
  new Gauge({
    name: "mailrisk_list_age_seconds",
    help: "Seconds since each synced list last confirmed its version in force.",
    labelNames: ["source"] as const,
    registers: [registry],
    aggregator: "min",
    collect() {
      this.reset();
      const now = Date.now();
      for (const { source, lastSuccess } of lists.states()) {
        if (lastSuccess) this.set({ source }, Math.floor((now - lastSuccess.getTime()) / 1000));
      }
    },
  });
  new Counter({
    name: "mailrisk_list_sync_failures_total",
    help: "Syncs of a list that failed or whose version was refused, by source and reason (status, timeout, too_large, redirect, network, not_a_list, empty, too_many_entries, shrank).",
    labelNames: ["source", "reason"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { source, reason, count } of lists.failures()) this.inc({ source, reason }, count);
    },
  });
}

/** Webhook events (docs/webhooks.md) by webhook and status: delivered, failed, pending; the database's counts, read every 10 s. */
function webhookMetrics(registry: Registry, webhooks: { counts(): DeliveryCounts }): void {
  new Gauge({
    name: "mailrisk_webhook_events",
    help: "Webhook events in the outbox by webhook and status (delivered, failed, pending), as the database counts them.",
    labelNames: ["webhook", "status"] as const,
    registers: [registry],
    aggregator: "max",
    collect() {
      this.reset();
      for (const { webhookId, status, count } of webhooks.counts())
        this.set({ webhook: webhookId, status }, count);
    },
  });
}

/** What the list job runner tells the metrics (docs/jobs.md). */
export interface JobGauges {
  itemsChecked(): number;
  counts(): ReadonlyMap<string, number>;
}

/** List jobs: items this process checked, and the jobs by status (the database's counts, read every 10 s). */
function jobMetrics(registry: Registry, jobs: JobGauges): void {
  new Counter({
    name: "mailrisk_job_items_total",
    help: "Items of list jobs this process checked.",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(jobs.itemsChecked());
    },
  });
  new Gauge({
    name: "mailrisk_jobs",
    help: "List jobs by status (queued, running, done, failed, cancelled), as the database counts them.",
    labelNames: ["status"] as const,
    registers: [registry],
    aggregator: "max",
    collect() {
      this.reset();
      for (const [status, count] of jobs.counts()) this.set({ status }, count);
    },
  });
}

/** The checker's side of the metrics: the resolver canary and the bounded queues. */
export type CheckerGauges = Pick<Checker, "resolverHealth" | "load">;

export function createMetrics(
  checker: CheckerGauges = {},
  lists?: ListGauges,
  webhooks?: { counts(): DeliveryCounts },
  jobs?: JobGauges,
): HttpMetrics {
  const { resolverHealth } = checker;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "mailrisk_" });
  if (lists) listMetrics(registry, lists);
  if (webhooks) webhookMetrics(registry, webhooks);
  if (jobs) jobMetrics(registry, jobs);
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
  // By method, status and route pattern (never the raw URL), so the set stays small.
  const requestCounts = new Map<string, PendingCount<"method" | "route" | "status">>();
  new Counter({
    name: "mailrisk_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
    collect() {
      for (const count of requestCounts.values()) addPending(this, count);
    },
  });
  const checkDuration = new Histogram({
    name: "mailrisk_check_duration_seconds",
    help: "Time to produce a check record, by cache outcome (hit, stale, miss).",
    labelNames: ["cache"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
    collect() {
      for (const { duration } of Object.values(byOutcome)) duration.flush();
    },
  });
  const outcomeMetrics = (name: CacheOutcome) => ({
    duration: new PendingObservations(checkDuration.labels(name)),
    count: pendingCount({ outcome: name }),
  });
  const byOutcome = {
    hit: outcomeMetrics("hit"),
    stale: outcomeMetrics("stale"),
    miss: outcomeMetrics("miss"),
  };
  const cache = new Counter({
    name: "mailrisk_record_cache_total",
    help: "Checks by record cache outcome (hit, stale, miss).",
    labelNames: ["outcome"] as const,
    registers: [registry],
    collect() {
      for (const { count } of Object.values(byOutcome)) addPending(this, count);
    },
  });
  for (const { count } of Object.values(byOutcome)) cache.inc(count.labels, 0);
  const refusedConnections: Record<ConnectionLimit, PendingCount<"limit">> = {
    overall: pendingCount({ limit: "overall" }),
    per_client: pendingCount({ limit: "per_client" }),
  };
  const refused = new Counter({
    name: "mailrisk_connections_refused_total",
    help: "New connections closed at once because the process (overall) or their client address (per_client) held as many as MAX_CONNECTIONS or MAX_CONNECTIONS_PER_CLIENT allow.",
    labelNames: ["limit"] as const,
    registers: [registry],
    collect() {
      for (const count of Object.values(refusedConnections)) addPending(this, count);
    },
  });
  for (const count of Object.values(refusedConnections)) refused.inc(count.labels, 0);
  const dnsErrors = new Counter({
    name: "mailrisk_dns_errors_total",
    help: "Fresh lookups whose record says the DNS failed, by reason.",
    labelNames: ["reason"] as const,
    registers: [registry],
  });

  return {
    registry,
    countRequest(method, route, status) {
      const key = `${method} ${status} ${route}`;
      let count = requestCounts.get(key);
      if (!count) {
        count = pendingCount({ method, route, status: String(status) });
        requestCounts.set(key, count);
      }
      count.pending++;
    },
    observeCheck(result, seconds) {
      const outcome = byOutcome[result.cache];
      outcome.duration.add(seconds);
      outcome.count.pending++;
      if (result.cache === "miss" && isTemporaryFailure(result.status)) {
        dnsErrors.inc({ reason: result.record.reason });
      }
    },
    countRefusedConnection(limit) {
      refusedConnections[limit].pending++;
    },
  };
}
