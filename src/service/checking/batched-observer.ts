/**
 * The `observe()` hook: every checked domain is reported here once its answer is known,
 * and the observer writes what it learnt in batches, off the request path. It is the
 * home of everything that learns from traffic: the recently checked list (every answered
 * check), and the evidence of mail infrastructure (fresh look-ups only: a cache hit
 * carries no new evidence), each by its own observer and sinks.
 *
 * Bounds. Observations wait in memory, one per domain (a newer one replaces it), until
 * a flush every `flushMs` or as soon as `batchSize` are waiting; a flush hands each sink
 * at most `batchSize` at a time and one flush runs at a time. When the sinks cannot keep
 * up (the database is down), at most `maxWaiting` domains wait and later ones are
 * dropped and counted: observations are hints, never worth slowing a check for.
 */
import { LRUCache } from "lru-cache";
import type { Evidence } from "../../core/learned.js";
import type { CheckRecord } from "../../core/record.js";
import { DAY_MS } from "../../core/time.js";
import type { InfrastructureRepository, RecentRepository, RecordsRepository } from "../../store/index.js";
import { PeriodicTask } from "../shared/periodic-task.js";
import type { CacheOutcome, LaneBudget } from "./checker.js";

export interface Observation {
  domain: string;
  at: Date;
  cache: CacheOutcome;
  /** The domain's record as answered. */
  record: CheckRecord;
  /** Where the check came from: the pages, the API; absent: the process's own work (the CLI). */
  via?: LaneBudget | undefined;
}

/** What a fresh look-up saw of a domain's mail infrastructure (src/core/learned.ts). */
export interface EvidenceObservation {
  domain: string;
  at: Date;
  evidence: Evidence;
}

/** Writes one batch (each domain at most once); a rejection is logged and the batch dropped. */
export type ObservationSink<T extends { domain: string } = Observation> = (
  batch: readonly T[],
) => Promise<void>;

export interface ObserverOptions<T extends { domain: string } = Observation> {
  sinks: readonly ObservationSink<T>[];
  flushMs?: number;
  batchSize?: number;
  maxWaiting?: number;
  /** The observation kept when a domain is observed again before a flush (default: the newer). */
  merge?: (waiting: T, newer: T) => T;
  onSinkError?: (error: unknown) => void;
}

export class Observer<T extends { domain: string } = Observation> {
  private waiting = new Map<string, T>();
  private readonly flushing: PeriodicTask;
  private readonly batchSize: number;
  private readonly maxWaiting: number;
  /** Observations dropped because too many were waiting. */
  dropped = 0;

  constructor(private readonly options: ObserverOptions<T>) {
    this.batchSize = options.batchSize ?? 100;
    this.maxWaiting = options.maxWaiting ?? 20_000;
    const flushMs = options.flushMs ?? 1000;
    this.flushing = new PeriodicTask({ run: () => this.writeAll(), everyMs: flushMs, firstMs: flushMs });
    this.flushing.start();
  }

  observe(observation: T): void {
    const waiting = this.waiting.get(observation.domain);
    if (waiting === undefined && this.waiting.size >= this.maxWaiting) {
      this.dropped++;
      return;
    }
    const merge = this.options.merge;
    this.waiting.set(
      observation.domain,
      waiting === undefined || merge === undefined ? observation : merge(waiting, observation),
    );
    if (this.waiting.size >= this.batchSize) void this.flush();
  }

  /** Writes everything waiting now; resolves when it is written (or dropped on a sink error). */
  flush(): Promise<void> {
    return this.flushing.runNow();
  }

  private async writeAll(): Promise<void> {
    while (this.waiting.size > 0) {
      const all = [...this.waiting.values()];
      this.waiting = new Map();
      for (let start = 0; start < all.length; start += this.batchSize) {
        const batch = all.slice(start, start + this.batchSize);
        await Promise.all(
          this.options.sinks.map((sink) =>
            sink(batch).catch((error: unknown) => this.options.onSinkError?.(error)),
          ),
        );
      }
    }
  }

  /** Stops the timer and writes what is waiting (graceful shutdown). */
  async close(): Promise<void> {
    await this.flushing.stop();
    await this.flush();
  }
}

/**
 * The recently checked list (docs/api.md "Result pages"): domains only, never addresses; only those
 * checked through the pages, unless `fromApi` (RECENT_FROM_API, docs/security.md) lets
 * every check in.
 */
export function recentSink(
  recent: Pick<RecentRepository, "addRecent">,
  { fromApi }: { fromApi: boolean },
): ObservationSink {
  return async (batch) => {
    const shown = fromApi ? batch : batch.filter(({ via }) => via === "pages");
    if (shown.length > 0) await recent.addRecent(shown.map(({ domain, at }) => ({ domain, checkedAt: at })));
  };
}

/** A domain the pages checked stays one the pages checked when an API check follows before the flush. */
export function keepPagesVia(waiting: Observation, newer: Observation): Observation {
  return waiting.via === "pages" && newer.via !== "pages" ? { ...newer, via: "pages" } : newer;
}

/**
 * When each domain was last answered (the domains webhooks watch, docs/webhooks.md): a
 * domain's row is written at most once a day, and a domain this process marked within the
 * day is not even sent.
 */
export function answeredSink(records: Pick<RecordsRepository, "markAnswered">): ObservationSink {
  const marked = new LRUCache<string, true>({ max: 200_000, ttl: DAY_MS, ttlAutopurge: false });
  return async (batch) => {
    const fresh = batch.filter(({ domain }) => !marked.has(domain));
    if (fresh.length === 0) return;
    const at = fresh.reduce((latest, { at }) => (at > latest ? at : latest), fresh[0]?.at ?? new Date());
    await records.markAnswered(
      fresh.map(({ domain }) => domain),
      at,
      new Date(at.getTime() - DAY_MS),
    );
    for (const { domain } of fresh) marked.set(domain, true);
  };
}

/** Evidence of mail infrastructure, for learning disposable infrastructure (docs/verdicts.md). */
export function evidenceSink(
  infrastructure: Pick<InfrastructureRepository, "recordEvidence">,
): ObservationSink<EvidenceObservation> {
  return (batch) =>
    infrastructure.recordEvidence(batch.map(({ evidence, at }) => ({ evidence, seenAt: at })));
}
