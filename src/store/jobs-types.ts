/** List jobs: the repository's contract and rows, implemented in src/store/jobs-repository.ts. */

/** Where a list job stands (docs/jobs.md); `uploading` jobs are not shown yet. */
export const JOB_STATUSES = ["queued", "running", "paused", "done", "failed", "cancelled"] as const;

export type JobStatus = (typeof JOB_STATUSES)[number] | "uploading";

/** How a job's checked items came out: `unknown` is a temporary DNS failure. */
export interface JobCounts {
  allow: number;
  block: number;
  invalid: number;
  unknown: number;
}

export interface Job {
  id: string;
  /** The key it was uploaded with; null for an account's own (uploaded in the console). */
  keyId: string | null;
  /** Whose it is: the key's account (or the account that uploaded it in the console), or the key without one. */
  owner: JobHolder;
  status: JobStatus;
  items: number;
  done: number;
  counts: JobCounts;
  /** The quota period its items were counted in. */
  periodStart: Date;
  /** JSON the runner and the results read (the upload's header and layout); opaque to the store. */
  header: string;
  layout: string;
  /** The uploaded file's name; null when the upload named none. */
  filename: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  expiresAt: Date | null;
}

/**
 * Whose jobs: an account's (every job of its keys, and the console's), a key's without an
 * account, or the operator's (every job).
 */
export type JobOwner = { kind: "account"; id: string } | { kind: "key"; id: string } | { kind: "operator" };

/** Whose a job is: an account, or a key without one. */
export type JobHolder = Exclude<JobOwner, { kind: "operator" }>;

/**
 * Who files an upload: a key (the job is its account's when it has one, else the key's),
 * or an account itself, with no key (the console's uploads).
 */
export type JobFiler = { keyId: string } | { accountId: string };

/** One input line of an upload: the input checked and its row (JSON, opaque to the store). */
export interface NewJobItem {
  input: string;
  row: string;
}

/** A batch claimed by one instance: its job, where it starts, and the input of each of its items. */
export interface ClaimedJobBatch {
  job: Job;
  firstSeq: number;
  inputs: string[];
}

/** A batch's outcomes: their text (opaque to the store, src/service/jobs/job-batch.ts) and what they add to the job's counts. */
export interface FinishedJobBatch {
  results: string;
  counts: JobCounts;
}

/** A checked batch, in input order: its items' rows and inputs (JSON arrays) and outcomes (as finished). */
export interface JobResultBatch {
  firstSeq: number;
  rows: string;
  inputs: string;
  results: string;
}

/** List jobs (src/store/jobs-repository.ts): uploads stored as batches of items, claimed whole by every instance. */
export interface JobsRepository {
  /** A job in `uploading`, invisible until `queueJob`, its owner the account (the key's, or the filer) or the key; its id. */
  startUpload(
    job: JobFiler & {
      header: string;
      layout: string;
      filename?: string | null;
      now: Date;
    },
  ): Promise<string>;
  /** Stores one batch of an upload's items, from `firstSeq` on: the unit claimed and answered. */
  addBatch(jobId: string, firstSeq: number, items: readonly NewJobItem[]): Promise<void>;
  /** Queues an uploaded job: its items were counted in the period starting `periodStart`. */
  queueJob(jobId: string, items: number, periodStart: Date): Promise<void>;
  /** Deletes a job and its items, whatever its status; whether there was one. */
  deleteJob(jobId: string): Promise<boolean>;
  getJob(id: string): Promise<Job | undefined>;
  /** Newest first: an account's jobs (of every key of it), a key's (without an account), or every job. */
  listJobs(owner: JobOwner, limit: number): Promise<Job[]>;
  /**
   * Claims one pending batch for `holder` until `until` (a conditional update, so no batch
   * is claimed by two instances at once; `inputs` is empty when another took it first).
   * The job is the one whose owner (account, or key without one) was served longest ago:
   * owners take turns.
   */
  claimBatch(holder: string, now: Date, until: Date): Promise<ClaimedJobBatch | undefined>;
  /** Extends `holder`'s claim of a job's pending batch starting at `firstSeq` until `until`. */
  renewClaim(jobId: string, holder: string, firstSeq: number, until: Date): Promise<void>;
  /**
   * Stores the outcomes of a batch `holder` claimed, in one transaction with the job's
   * counts; the job when this batch ended it (done, its `job.completed` events written
   * with it). Nothing is stored for a job no longer running, or a claim lost.
   */
  finishBatch(
    jobId: string,
    holder: string,
    firstSeq: number,
    finished: FinishedJobBatch,
    now: Date,
    retentionMs: number,
  ): Promise<Job | undefined>;
  /**
   * Ends a queued, running or paused job as `cancelled` or `failed` (with its
   * `job.failed` events), giving back the units of the items not checked; the ended job,
   * or undefined when it was not queued, running or paused.
   */
  endJob(
    id: string,
    status: "cancelled" | "failed",
    now: Date,
    retentionMs: number,
  ): Promise<Job | undefined>;
  /**
   * Notes that a batch of an active job failed: the job's failures started now unless
   * they had started already; since when they have lasted, or undefined when the job is
   * not active. A batch that succeeds (`finishBatch`) clears it.
   */
  noteFailure(jobId: string, now: Date): Promise<Date | undefined>;
  /** Gives up `holder`'s claim of a pending batch, so that it is claimed again at once. */
  releaseClaim(jobId: string, holder: string, firstSeq: number): Promise<void>;
  /** Pauses the account's queued and running jobs (none of their batches is claimed then); how many. */
  pauseAccountJobs(accountId: string): Promise<number>;
  /** Puts the account's paused jobs back where they were (queued, or running once started); how many. */
  resumeAccountJobs(accountId: string): Promise<number>;
  /** Deletes every job of the account, whatever its status, with its batches; how many. */
  deleteAccountJobs(accountId: string): Promise<number>;
  /** Checked batches starting after `afterSeq`, in input order; at most `limit`. */
  results(jobId: string, afterSeq: number, limit: number): Promise<JobResultBatch[]>;
  /** How many shown jobs there are by status. */
  countByStatus(): Promise<Map<string, number>>;
}
