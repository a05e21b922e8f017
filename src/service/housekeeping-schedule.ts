/**
 * Housekeeping (docs/api.md "Storage and caching"): a periodic task of the server that prunes what nobody
 * reads any more, so the database does not grow without bound:
 *
 * - usage rows of periods that ended more than USAGE_RETENTION_DAYS ago;
 * - records last checked more than RECORD_TTL + RECORD_GRACE_DAYS ago (a record that
 *   old is stale anyway; its domain's next check starts afresh, `block_status_changed_at`
 *   included);
 * - infrastructure evidence no fresh look-up has seen for EVIDENCE_RETENTION_DAYS (a
 *   domain still in traffic is looked up again at least every RECORD_TTL, which renews
 *   its evidence; what nobody has confirmed for a year no longer describes who runs that
 *   host, and the table would otherwise keep a row for every domain ever checked);
 * - webhook events delivered or given up more than WEBHOOK_EVENT_RETENTION_DAYS ago,
 *   with their attempts (pending events are never pruned);
 * - what accounts leave behind: sessions unused for SESSION_TTL, expired codes and
 *   links, old failed log-ins, requests per day and account counts older than
 *   USAGE_RETENTION_DAYS (docs/accounts.md).
 * - list jobs JOB_RETENTION after they ended, and uploads abandoned for a day (docs/jobs.md).
 * - traffic counters of days more than TRAFFIC_RETENTION_DAYS ago (docs/console.md "Traffic").
 *
 * It runs a minute after start and then an hour after each run, on the server's periodic
 * schedule (src/service/shared/periodic-task.ts: unref'd timers, one run at a time). Each run deletes in batches of BATCH_SIZE rows,
 * one short statement each, yielding to requests between them, and at most
 * MAX_BATCHES_PER_RUN batches per table (the rest waits for the next run). Several
 * instances may run it on one database: the deletes are idempotent. `stop()` (server
 * shutdown) cancels the schedule and waits for a run in progress to finish its batch.
 */
import { setImmediate as yieldToRequests } from "node:timers/promises";
import type { Logger } from "pino";
import { DAY_MS } from "../core/time.js";
import type { HousekeepingRepository } from "../store/index.js";
import { PeriodicTask } from "./shared/periodic-task.js";

export const USAGE_RETENTION_DAYS = 400;
export const RECORD_GRACE_DAYS = 30;
export const EVIDENCE_RETENTION_DAYS = 400;
export const WEBHOOK_EVENT_RETENTION_DAYS = 30;
/** The desk's 30 days of traffic, and a margin. */
export const TRAFFIC_RETENTION_DAYS = 35;
export const HOUSEKEEPING_INTERVAL_MS = 3_600_000;
export const HOUSEKEEPING_FIRST_RUN_MS = 60_000;
export const BATCH_SIZE = 1000;
export const MAX_BATCHES_PER_RUN = 100;

export interface HousekeepingOptions {
  housekeeping: HousekeepingRepository;
  /** RECORD_TTL in seconds. */
  recordTtlSeconds: number;
  /** SESSION_TTL in seconds: a session unused that long is gone. */
  sessionTtlSeconds: number;
  clock?: () => Date;
  logger?: Pick<Logger, "info" | "warn">;
  /** Defaults: the constants above (tests shorten them). */
  intervalMs?: number;
  firstRunMs?: number;
  batchSize?: number;
}

export interface PruneCounts {
  usage: number;
  records: number;
  evidence: number;
  webhookEvents: number;
  accounts: number;
  jobs: number;
  traffic: number;
}

export interface Housekeeping {
  /** Runs a minute after this (`firstRunMs`), then every hour (`intervalMs`). */
  start(): void;
  /** One run now (what the schedule does): rows deleted per table. */
  runOnce(): Promise<PruneCounts>;
  /** Stops the schedule; resolves once a run in progress has stopped. */
  stop(): Promise<void>;
}

/** The cut-offs of a run at `now`. */
export function pruneCutoffs(
  now: Date,
  recordTtlSeconds: number,
): {
  usageEndedBefore: Date;
  recordsCheckedBefore: Date;
  evidenceSeenBefore: Date;
  webhookEventsFinishedBefore: Date;
} {
  return {
    usageEndedBefore: new Date(now.getTime() - USAGE_RETENTION_DAYS * DAY_MS),
    recordsCheckedBefore: new Date(now.getTime() - recordTtlSeconds * 1000 - RECORD_GRACE_DAYS * DAY_MS),
    evidenceSeenBefore: new Date(now.getTime() - EVIDENCE_RETENTION_DAYS * DAY_MS),
    webhookEventsFinishedBefore: new Date(now.getTime() - WEBHOOK_EVENT_RETENTION_DAYS * DAY_MS),
  };
}

/** The housekeeping of a server, not started. */
export function scheduleHousekeeping(options: HousekeepingOptions): Housekeeping {
  const { housekeeping, recordTtlSeconds, sessionTtlSeconds, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const batchSize = options.batchSize ?? BATCH_SIZE;
  let stopped = false;
  let running: Promise<PruneCounts> | undefined;

  /** Batches of one table until one comes back short, the run's bound is reached, or stop. */
  async function pruneInBatches(prune: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN && !stopped; batch++) {
      const deleted = await prune(batchSize);
      total += deleted;
      if (deleted < batchSize) break;
      await yieldToRequests();
    }
    return total;
  }

  async function run(): Promise<PruneCounts> {
    const now = clock();
    const cutoffs = pruneCutoffs(now, recordTtlSeconds);
    const accountCutoffs = {
      now,
      idleSince: new Date(now.getTime() - sessionTtlSeconds * 1000),
      countedBefore: cutoffs.usageEndedBefore,
    };
    const counts = {
      usage: await pruneInBatches((limit) => housekeeping.pruneUsage(cutoffs.usageEndedBefore, limit)),
      records: await pruneInBatches((limit) =>
        housekeeping.pruneRecords(cutoffs.recordsCheckedBefore, limit),
      ),
      evidence: await pruneInBatches((limit) =>
        housekeeping.pruneEvidence(cutoffs.evidenceSeenBefore, limit),
      ),
      webhookEvents: await pruneInBatches((limit) =>
        housekeeping.pruneWebhookEvents(cutoffs.webhookEventsFinishedBefore, limit),
      ),
      accounts: await pruneInBatches((limit) => housekeeping.pruneAccountLeftovers(accountCutoffs, limit)),
      jobs: await pruneInBatches((limit) =>
        housekeeping.pruneJobs(now, new Date(now.getTime() - DAY_MS), limit),
      ),
      traffic: await pruneInBatches((limit) =>
        housekeeping.pruneTraffic(new Date(now.getTime() - TRAFFIC_RETENTION_DAYS * DAY_MS), limit),
      ),
    };
    if (Object.values(counts).some((deleted) => deleted > 0))
      logger?.info(counts, "housekeeping pruned old rows");
    return counts;
  }

  function runOnce(): Promise<PruneCounts> {
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  }

  const schedule = new PeriodicTask({
    run: async () => void (await runOnce()),
    firstMs: options.firstRunMs ?? HOUSEKEEPING_FIRST_RUN_MS,
    everyMs: options.intervalMs ?? HOUSEKEEPING_INTERVAL_MS,
    onError: (error) => logger?.warn({ err: error }, "housekeeping failed; it runs again at its next time"),
  });
  return {
    start: () => schedule.start(),
    runOnce,
    async stop() {
      stopped = true;
      await schedule.stop();
      await running?.catch(() => undefined);
    },
  };
}
