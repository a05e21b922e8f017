/**
 * The scheduled sync of LIST_SOURCES in a server (docs/data.md, "Synced lists"): a check
 * a minute after start (or after LIST_SYNC_INTERVAL, if shorter) and then every interval
 * (at most every 10 minutes); a sync runs when a source's last attempt, by any instance,
 * is an interval old or the database's list policy is not LIST_SOURCES, under the lock
 * that lets one instance fetch for all. It also keeps what the metrics show (entries and
 * age of each source's version in force, failures by source and reason) and warns, once
 * a day per source, when a source's data in force is older than 7 days. Failures never touch readiness: stale lists are not "unready".
 */
import type { Logger } from "pino";
import type { ListSource } from "../../config-table.js";
import { DAY_MS } from "../../core/time.js";
import type { ListSourceState, Store } from "../../store/index.js";
import { PeriodicTask } from "../shared/periodic-task.js";
import { bundledGate, syncLists } from "./list-sync.js";
import { policyIs } from "./lists-in-force.js";

/** A source's data in force older than this gets a warning. */
const STALE_MS = 7 * DAY_MS;
const FIRST_CHECK_MS = 60_000;
const MAX_CHECK_EVERY_MS = 10 * 60_000;

export interface ListScheduleOptions {
  store: Pick<Store, "lists" | "locks">;
  sources: readonly ListSource[];
  /** LIST_SYNC_INTERVAL; null: never sync here, only keep the gauges and warnings. */
  intervalSeconds: number | null;
  /** LIST_MAX_ENTRIES. */
  maxEntries: number;
  logger: Pick<Logger, "info" | "warn">;
  clock?: () => Date;
}

/** What the metrics read of the synced lists. */
export interface ListGauges {
  /** Each source with a version in force: its entries and when it last confirmed it. */
  states(): readonly { source: string; entries: number; lastSuccess: Date | null }[];
  /** Failed or refused syncs since start, by source and reason code. */
  failures(): readonly { source: string; reason: string; count: number }[];
}

export class ListSchedule implements ListGauges {
  private readonly schedule: PeriodicTask;
  private latest: readonly ListSourceState[] = [];
  private readonly failed = new Map<string, { source: string; reason: string; count: number }>();
  /** When each source was last warned about as stale (ms). */
  private readonly warned = new Map<string, number>();
  private readonly clock: () => Date;
  private readonly intervalMs: number;

  constructor(private readonly options: ListScheduleOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.intervalMs = (options.intervalSeconds ?? Number.POSITIVE_INFINITY) * 1000;
    this.schedule = new PeriodicTask({
      run: () => this.tick(),
      firstMs: Math.min(this.intervalMs, FIRST_CHECK_MS),
      everyMs: Math.min(this.intervalMs, MAX_CHECK_EVERY_MS),
    });
  }

  start(): void {
    this.schedule.start();
  }

  /** Syncs when a source is due, then warns of stale data; a database failure waits for the next tick. */
  async tick(): Promise<void> {
    const { store, sources, logger } = this.options;
    try {
      const now = this.clock();
      this.latest = await store.lists.listStates();
      const due =
        this.options.intervalSeconds !== null &&
        ((await this.policyDiffers()) ||
          sources.some((source) => {
            const state = this.latest.find((s) => s.source === source.name);
            return !state || now.getTime() - state.lastAttempt.getTime() >= this.intervalMs;
          }));
      if (due) {
        const report = await syncLists({
          store,
          sources,
          maxEntries: this.options.maxEntries,
          gate: bundledGate(),
          clock: this.clock,
          holder: `server ${process.pid}`,
          onFailure: (source, reason) => this.countFailure(source, reason),
        });
        for (const source of report.sources) {
          if (source.outcome === "accepted") {
            logger.info(
              { source: source.source, added: source.added, removed: source.removed },
              "list synced",
            );
          } else if (source.outcome !== "unchanged") {
            logger.warn(
              { source: source.source, reason: source.reason },
              "list sync failed; its version in force stays",
            );
          }
        }
        this.latest = await store.lists.listStates();
      }
      this.warnStale(now);
    } catch (error) {
      logger.warn({ err: error }, "could not sync the lists; trying again at the next check");
    }
  }

  /** Whether the database's list policy names other sources than LIST_SOURCES: a sync sets it. */
  private async policyDiffers(): Promise<boolean> {
    const names = this.options.sources.map((s) => s.name);
    return !policyIs((await this.options.store.lists.policy())?.sources, names);
  }

  private countFailure(source: string, reason: string): void {
    const key = `${source} ${reason}`;
    const failure = this.failed.get(key) ?? { source, reason, count: 0 };
    failure.count++;
    this.failed.set(key, failure);
  }

  private warnStale(now: Date): void {
    for (const state of this.latest) {
      const confirmed = (state.lastSuccess ?? state.current?.acceptedAt)?.getTime();
      if (confirmed === undefined || now.getTime() - confirmed < STALE_MS) continue;
      if (now.getTime() - (this.warned.get(state.source) ?? 0) < DAY_MS) continue;
      this.warned.set(state.source, now.getTime());
      this.options.logger.warn(
        { source: state.source, lastSuccess: state.lastSuccess, lastError: state.lastError },
        "a synced list's data in force is older than 7 days",
      );
    }
  }

  states() {
    return this.latest
      .filter((s) => s.current !== null)
      .map((s) => ({ source: s.source, entries: s.current?.entryCount ?? 0, lastSuccess: s.lastSuccess }));
  }

  failures() {
    return [...this.failed.values()];
  }

  stop(): Promise<void> {
    return this.schedule.stop();
  }
}
