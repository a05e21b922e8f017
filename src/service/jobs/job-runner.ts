/**
 * Runs list jobs (docs/jobs.md "Running"): every server claims batches of items in the
 * database, checks them in the jobs' own look-up budget with the owner's share, and
 * writes their outcomes back with the job's counts in one transaction. A claim lasts
 * LEASE_MS and is renewed while its batch runs: an instance that dies leaves its batch to
 * be claimed again once the lease ends, and only the holder's outcomes are written, so
 * every row is answered exactly once. The checking gives the event loop a turn every
 * SLICE_MS or CHECKS_PER_TURN checks, so the server's requests wait about that long for it.
 * While the API's checking requests are in progress, the runner starts no check and
 * claims or writes no batch (for GIVE_WAY_MS at most each time), and each record is
 * serialised as its check ends rather than a batch's worth at once; and while the machine
 * has no core to spare, the event loop stays under the jobs' share of a core (`CpuShare`):
 * above it the runner starts no check and claims no batch (docs/jobs.md "Headroom").
 * A batch that fails (the database or the resolver unreachable) is given up and claimed
 * again after a pause; the job fails only once its batches have failed for `failAfterMs`
 * without one success (docs/jobs.md "Faults").
 */
import { setImmediate as yieldToRequests } from "node:timers/promises";
import type { CheckRecord } from "../../core/record.js";
import type { NameRules } from "../../core/reserved-names.js";
import type { Job, JobsRepository } from "../../store/index.js";
import { JOB_STATUSES } from "../../store/jobs-types.js";
import { type CheckOutcome, checkMany } from "../checking/check-many.js";
import type { Checker } from "../checking/checker.js";
import type { TrafficCounter } from "../checking/traffic-counter.js";
import { PeriodicTask } from "../shared/periodic-task.js";
import type { CpuShare } from "./cpu-share.js";
import { encodeOutcomes } from "./job-batch.js";
import type { RequestsInProgress } from "./requests-in-progress.js";

/** How long a claim lasts without renewal. */
export const LEASE_MS = 10_000;
/** Work of the runner between two turns of the event loop (cached checks answer without one). */
const SLICE_MS = 1;
/** Checks of one batch at a time; the jobs' look-up budget bounds the look-ups. */
const CHECKS_AT_ONCE = 32;
/** Checks started in one turn of the event loop at most (see inTurns). */
const CHECKS_PER_TURN = 8;
/** The longest a job waits at once for the API's requests in progress to answer. */
const GIVE_WAY_MS = 20;
/** JOB_FAIL_AFTER's default: how long a job's batches may fail without one success. */
const FAIL_AFTER_MS = 5 * 60_000;
/** How often the counts by status are read for the metrics. */
const COUNTS_EVERY_MS = 10_000;

export interface JobRunnerOptions extends NameRules {
  jobs: Pick<
    JobsRepository,
    "claimBatch" | "renewClaim" | "releaseClaim" | "finishBatch" | "noteFailure" | "endJob" | "countByStatus"
  >;
  checker: Pick<Checker, "check">;
  /** This instance, as its claims name it. */
  holder: string;
  /** JOB_RETENTION in milliseconds. */
  retentionMs: number;
  /** JOB_FAIL_AFTER in milliseconds; default 5 minutes. */
  failAfterMs?: number;
  /** The server's checking requests in progress, which the jobs give way to. */
  requests?: Pick<RequestsInProgress, "busy" | "whenIdle">;
  /** The bound on the event loop's share of a core while the machine is contended. */
  cpu?: Pick<CpuShare, "over" | "whenUnder">;
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
function inTurns(
  checker: Pick<Checker, "check">,
  { requests, cpu }: Pick<JobRunnerOptions, "requests" | "cpu">,
): Pick<Checker, "check"> {
  let turnAt = performance.now() + SLICE_MS;
  let started = 0;
  /** The next turn, shared by the checks waiting for it. */
  let next: Promise<void> | undefined;
  return {
    async check(input, lane) {
      // No check starts while a request is answered (its look-ups would come between), nor over the
      // share of a core, nor past the turn's; each is asked again after any wait.
      for (;;) {
        if (requests?.busy()) await requests.whenIdle(GIVE_WAY_MS);
        else if (cpu?.over()) await cpu.whenUnder();
        else if (started >= CHECKS_PER_TURN || performance.now() > turnAt) {
          next ??= yieldToRequests().then(() => {
            next = undefined;
            turnAt = performance.now() + SLICE_MS;
            started = 0;
          });
          await next;
        } else break;
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
  /** Since when (ms) this instance has seen only failures of a job, by job. */
  private readonly failingSince = new Map<string, number>();

  constructor(private readonly options: JobRunnerOptions) {
    this.checker = inTurns(options.checker, options);
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
    await this.options.requests?.whenIdle(GIVE_WAY_MS);
    while (this.options.cpu?.over()) await this.options.cpu.whenUnder();
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
      await this.options.requests?.whenIdle(GIVE_WAY_MS);
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
      this.failingSince.delete(job.id);
      if (ended) this.options.onEnded?.(ended);
    } catch (error) {
      clearInterval(renew);
      await this.failed(job, firstSeq, error);
      // A pause before the next claim (the next run of the task): a fault of a few seconds is waited out.
      return false;
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
    // The job's account, whose own list its answers follow; a job with no key runs as its account.
    const account = job.owner.kind === "account" ? job.owner.id : undefined;
    const checked = checkMany(inputs, {
      checker: this.checker,
      testNames: this.options.testNames,
      concurrency: CHECKS_AT_ONCE,
      lane: { budget: "jobs", client: job.keyId ?? `account:${job.owner.id}`, account },
    });
    for await (const { outcome } of checked) {
      // Serialised as it comes (once per record while it lives), not a batch's worth at once when the batch ends.
      if (!("problem" in outcome) && !this.written.has(outcome.record))
        this.written.set(outcome.record, JSON.stringify(outcome.record));
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /**
   * A batch that failed is given up (claimed again after a pause, by any instance); the
   * job ends `failed` once its failures have lasted `failAfterMs` without one success.
   * The job's row says since when (any instance's success clears it); while the database
   * cannot be written, this instance's own view stands in.
   */
  private async failed(job: Job, firstSeq: number, error: unknown): Promise<void> {
    const { jobs, holder } = this.options;
    this.options.onError?.(error);
    const now = new Date();
    let since = this.failingSince.get(job.id) ?? now.getTime();
    try {
      await jobs.releaseClaim(job.id, holder, firstSeq);
      const noted = await jobs.noteFailure(job.id, now);
      if (!noted) {
        // No longer active (ended, paused or deleted): nothing to fail.
        this.failingSince.delete(job.id);
        return;
      }
      since = noted.getTime();
    } catch {
      // The database is unreachable too: the claim ends with its lease, and this instance's count holds.
    }
    this.failingSince.set(job.id, since);
    if (now.getTime() - since < (this.options.failAfterMs ?? FAIL_AFTER_MS)) return;
    this.failingSince.delete(job.id);
    const ended = await jobs.endJob(job.id, "failed", now, this.options.retentionMs);
    if (ended) this.options.onEnded?.(ended);
  }
}
