/**
 * Runs list jobs (docs/jobs.md "Running"): every server claims batches of items in the
 * database, checks them in the jobs' own look-up budget with the owner's share, and
 * writes their outcomes back with the job's counts in one transaction. A claim lasts
 * LEASE_MS and is renewed while its batch runs: an instance that dies leaves its batch to
 * be claimed again once the lease ends, and only the holder's outcomes are written, so
 * every row is answered exactly once. The checking gives the event loop a turn every
 * SLICE_MS or CHECKS_PER_TURN checks, so the server's requests wait about that long for it.
 */
import { setImmediate as yieldToRequests } from "node:timers/promises";
import type { CheckRecord } from "../core/record.js";
import type { NameRules } from "../core/reserved-names.js";
import { JOB_STATUSES, type Job, type JobsRepository, type KeysRepository } from "../store/types.js";
import { type CheckOutcome, checkMany } from "./check-many.js";
import type { Checker } from "./checker.js";
import { encodeOutcomes } from "./job-batch.js";
import { PeriodicTask } from "./periodic-task.js";
import type { TrafficCounter } from "./traffic-counter.js";

/** How long a claim lasts without renewal. */
export const LEASE_MS = 10_000;
/** Work of the runner between two turns of the event loop (cached checks answer without one). */
const SLICE_MS = 1;
/** Checks of one batch at a time; the jobs' look-up budget bounds the look-ups. */
const CHECKS_AT_ONCE = 32;
/** Checks started in one turn of the event loop at most (see inTurns). */
const CHECKS_PER_TURN = 8;
/** Batches of one job that fail in a row before it ends `failed`. */
const FAILURES_TO_FAIL = 3;
/** How often the counts by status are read for the metrics. */
const COUNTS_EVERY_MS = 10_000;

export interface JobRunnerOptions extends NameRules {
  jobs: Pick<JobsRepository, "claimBatch" | "renewClaim" | "finishBatch" | "endJob" | "countByStatus">;
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
  /** This instance's traffic counts: each item checked, once its batch is written (docs/console.md "Traffic"). */
  traffic?: Pick<TrafficCounter, "count">;
}

/**
 * The checker, giving the event loop a turn before a check once SLICE_MS have passed
 * since the last turn or CHECKS_PER_TURN checks have started in it. The count matters:
 * checks already started run on in microtasks (a record read, a flip recorded), all of
 * them before the event loop moves, so up to CHECKS_AT_ONCE of them would otherwise come
 * between two requests, however long each took.
 */
function inTurns(checker: Pick<Checker, "check">): Pick<Checker, "check"> {
  let turnAt = performance.now() + SLICE_MS;
  let started = 0;
  /** The next turn, shared by the checks waiting for it. */
  let next: Promise<void> | undefined;
  return {
    async check(input, lane) {
      while (started >= CHECKS_PER_TURN || performance.now() > turnAt) {
        next ??= yieldToRequests().then(() => {
          next = undefined;
          turnAt = performance.now() + SLICE_MS;
          started = 0;
        });
        await next;
      }
      started++;
      return checker.check(input, lane);
    },
  };
}

export class JobRunner {
  private readonly task: PeriodicTask;
  /** The checker, taking turns with the server's requests. */
  private readonly checker: Pick<Checker, "check">;
  private stopped = false;
  private checkedItems = 0;
  private statusCounts = new Map<string, number>();
  private countsRead = 0;
  /** Each record's JSON, for as long as the record lives (the cache shares one per domain). */
  private readonly written = new WeakMap<CheckRecord, string>();
  /** Batches failed in a row, by job. */
  private readonly failures = new Map<string, number>();

  constructor(private readonly options: JobRunnerOptions) {
    this.checker = inTurns(options.checker);
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
    const claimed = await jobs.claimBatch(holder, now, new Date(now.getTime() + LEASE_MS));
    if (!claimed) return false;
    const { job, firstSeq, inputs } = claimed;
    // Another instance took the batch first: look again at once.
    if (inputs.length === 0) return true;
    const renew = setInterval(() => {
      jobs.renewClaim(job.id, holder, firstSeq, new Date(Date.now() + LEASE_MS)).catch(this.options.onError);
    }, LEASE_MS / 3);
    try {
      const outcomes = await this.check(job, inputs);
      const finished = encodeOutcomes(outcomes, this.written);
      const ended = await jobs.finishBatch(
        job.id,
        holder,
        firstSeq,
        finished,
        new Date(),
        this.options.retentionMs,
      );
      this.checkedItems += outcomes.length;
      this.countTraffic(outcomes);
      this.failures.delete(job.id);
      if (ended) this.options.onEnded?.(ended);
    } catch (error) {
      await this.failed(job, error);
    } finally {
      clearInterval(renew);
    }
    return true;
  }

  /** The items of a written batch that were checked (an input that is no address or domain was not). */
  private countTraffic(outcomes: readonly CheckOutcome[]): void {
    const { traffic } = this.options;
    if (!traffic) return;
    for (const outcome of outcomes) if ("record" in outcome) traffic.count("jobs", outcome.record);
  }

  private async check(job: Job, inputs: readonly string[]): Promise<CheckOutcome[]> {
    const outcomes: CheckOutcome[] = [];
    // One read per batch: the key's account, whose own list its answers follow.
    const account = (await this.options.keys?.getKey(job.keyId))?.accountId ?? undefined;
    const checked = checkMany(inputs, {
      checker: this.checker,
      testNames: this.options.testNames,
      concurrency: CHECKS_AT_ONCE,
      lane: { budget: "jobs", client: job.keyId, account },
    });
    for await (const { outcome } of checked) outcomes.push(outcome);
    return outcomes;
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
