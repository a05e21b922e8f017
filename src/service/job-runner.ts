/**
 * Runs list jobs (docs/jobs.md "Running"): every server claims batches of items in the
 * database, checks them in the jobs' own look-up budget with the owner's share, and
 * writes their outcomes back with the job's counts in one transaction. A claim lasts
 * LEASE_MS and is renewed while its batch runs: an instance that dies leaves its batch to
 * be claimed again once the lease ends, and only the holder's outcomes are written, so
 * every row is answered exactly once.
 */
import { setImmediate as yieldToRequests } from "node:timers/promises";
import type { NameRules } from "../core/reserved-names.js";
import { isTemporaryFailure } from "../core/verdict.js";
import {
  type FinishedJobItem,
  JOB_STATUSES,
  type Job,
  type JobsRepository,
  type KeysRepository,
} from "../store/types.js";
import { type CheckOutcome, checkMany, outcomeBody, verdictOf } from "./check-many.js";
import type { Checker } from "./checker.js";
import { PeriodicTask } from "./periodic-task.js";

/** How long a claim lasts without renewal. */
export const LEASE_MS = 10_000;
/** Items claimed at once. */
const BATCH_SIZE = 200;
/** Checks of one batch at a time; the jobs' look-up budget bounds the look-ups. */
const CHECKS_AT_ONCE = 32;
/** Batches of one job that fail in a row before it ends `failed`. */
const FAILURES_TO_FAIL = 3;
/** How often the counts by status are read for the metrics. */
const COUNTS_EVERY_MS = 10_000;

export interface JobRunnerOptions extends NameRules {
  jobs: Pick<JobsRepository, "claimItems" | "renewClaims" | "finishItems" | "endJob" | "countByStatus">;
  checker: Pick<Checker, "check">;
  /** The owners' keys: a job of an account's key is answered by the account's own list (docs/accounts.md). */
  keys?: Pick<KeysRepository, "getKey">;
  /** This instance, as its claims name it. */
  holder: string;
  /** JOB_RETENTION in milliseconds. */
  retentionMs: number;
  /** Polls while idle; default 500 ms. */
  everyMs?: number;
  onError?: (error: unknown) => void;
  /** A job ended here (done, or failed). */
  onEnded?: (job: Job) => void;
}

/** The count an outcome adds to. */
function countOf(outcome: CheckOutcome): FinishedJobItem["count"] {
  if ("problem" in outcome) return "invalid";
  if (outcome.status !== undefined && isTemporaryFailure(outcome.status)) return "unknown";
  return outcome.record.block ? "block" : "allow";
}

export class JobRunner {
  private readonly task: PeriodicTask;
  private stopped = false;
  private checkedItems = 0;
  private statusCounts = new Map<string, number>();
  private countsRead = 0;
  /** Batches failed in a row, by job. */
  private readonly failures = new Map<string, number>();

  constructor(private readonly options: JobRunnerOptions) {
    this.task = new PeriodicTask({
      run: () => this.runBatches(),
      everyMs: options.everyMs ?? 500,
      onError: options.onError,
    });
  }

  start(): void {
    this.task.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.task.stop();
  }

  /** Items this process checked for jobs (`mailrisk_job_items_total`). */
  itemsChecked(): number {
    return this.checkedItems;
  }

  /** Shown jobs by every status, read at most every 10 s (`mailrisk_jobs`). */
  counts(): ReadonlyMap<string, number> {
    return new Map(JOB_STATUSES.map((status) => [status, this.statusCounts.get(status) ?? 0]));
  }

  /** Batches until none is left to claim (or stop). */
  private async runBatches(): Promise<void> {
    if (Date.now() - this.countsRead > COUNTS_EVERY_MS) {
      this.countsRead = Date.now();
      this.statusCounts = await this.options.jobs.countByStatus();
    }
    // Each batch yields to the event loop first: SQLite's calls are synchronous, and requests must get their turn.
    while (!this.stopped && (await yieldToRequests().then(() => this.runBatch()))) {}
  }

  /** One batch; false when there was none to claim. */
  private async runBatch(): Promise<boolean> {
    const { jobs, holder } = this.options;
    const now = new Date();
    const claimed = await jobs.claimItems(holder, now, new Date(now.getTime() + LEASE_MS), BATCH_SIZE);
    if (!claimed) return false;
    const { job, items } = claimed;
    // Another instance took these items first: look again at once.
    if (items.length === 0) return true;
    const seqs = { first: items[0]?.seq ?? 0, last: items.at(-1)?.seq ?? 0 };
    const renew = setInterval(() => {
      jobs.renewClaims(job.id, holder, seqs, new Date(Date.now() + LEASE_MS)).catch(this.options.onError);
    }, LEASE_MS / 3);
    try {
      const finished = await this.check(job, items);
      const ended = await jobs.finishItems(job.id, holder, finished, new Date(), this.options.retentionMs);
      this.checkedItems += finished.length;
      this.failures.delete(job.id);
      if (ended) this.options.onEnded?.(ended);
    } catch (error) {
      await this.failed(job, error);
    } finally {
      clearInterval(renew);
    }
    return true;
  }

  private async check(
    job: Job,
    items: readonly { seq: number; input: string }[],
  ): Promise<FinishedJobItem[]> {
    const finished: FinishedJobItem[] = [];
    // One read per batch: the key's account, whose own list its answers follow.
    const account = (await this.options.keys?.getKey(job.keyId))?.accountId ?? undefined;
    const checked = checkMany(items, {
      checker: this.options.checker,
      testNames: this.options.testNames,
      concurrency: CHECKS_AT_ONCE,
      lane: { budget: "jobs", client: job.keyId, account },
      inputOf: (item) => item.input,
    });
    for await (const { item, outcome } of checked) {
      finished.push({
        seq: item.seq,
        result: JSON.stringify(outcomeBody(outcome)),
        verdict: verdictOf(outcome),
        count: countOf(outcome),
      });
    }
    return finished;
  }

  /** A batch that failed is claimed again when its lease ends; a job whose batches keep failing ends `failed`. */
  private async failed(job: Job, error: unknown): Promise<void> {
    this.options.onError?.(error);
    const failures = (this.failures.get(job.id) ?? 0) + 1;
    this.failures.set(job.id, failures);
    if (failures < FAILURES_TO_FAIL) return;
    this.failures.delete(job.id);
    const ended = await this.options.jobs.endJob(job.id, "failed", new Date(), this.options.retentionMs);
    if (ended) this.options.onEnded?.(ended);
  }
}
