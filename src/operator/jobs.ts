/**
 * List jobs (docs/jobs.md): an upload checked in the background, its progress and its
 * results. A job belongs to the account of the key that created it (or to the key,
 * without one), or to the account that uploaded it in the console; the operator sees
 * every job. One wire shape for `GET /v2/jobs/<id>`, the admin API and `jobs --json`.
 */
import { setImmediate as yieldToRequests } from "node:timers/promises";
import { type Static, Type } from "typebox";
import { formatTimestamp } from "../core/record.js";
import { nullable, Timestamp } from "../core/schema-types.js";
import type { Verdict } from "../service/checking/check-many.js";
import { type CsvAdvice, CsvError, CsvTooLarge, csvErrorText } from "../service/csv/csv-error.js";
import { csvWriter } from "../service/csv/write-csv.js";
import { decodeBatch } from "../service/jobs/job-batch.js";
import {
  QuotaPassed,
  readUpload,
  SpoolFull,
  type StoredRow,
  type UploadKind,
  type UploadLimits,
  type UploadShape,
  UploadTooLarge,
} from "../service/jobs/job-upload.js";
import type { SpoolBytes } from "../service/jobs/upload-gate.js";
import type { Job, JobFiler, JobOwner, Store } from "../store/index.js";
import { JOB_STATUSES } from "../store/jobs-types.js";
import { type Actor, audited, type ChangeNote } from "./audit.js";
import { Refusal } from "./refusal.js";

const Count = Type.Integer({ minimum: 0 });

export const JobSchema = Type.Object({
  id: Type.String(),
  status: Type.Unsafe<(typeof JOB_STATUSES)[number]>(
    Type.Union(JOB_STATUSES.map((status) => Type.Literal(status))),
  ),
  items: Type.Integer({ description: "Input lines of the upload." }),
  done: Type.Integer({
    description: "Items checked so far: for a cancelled job, the rows its results hold.",
  }),
  counts: Type.Object(
    { allow: Count, block: Count, invalid: Count, unknown: Count },
    { description: "The checked items by outcome; `unknown`: a temporary DNS failure." },
  ),
  filename: nullable<string>("string", {
    description:
      "The uploaded file's name (a multipart `file` part's filename); null when the upload named none.",
  }),
  created_at: Timestamp,
  started_at: nullable<string>("string", { format: "date-time", description: "Null while queued." }),
  finished_at: nullable<string>("string", { format: "date-time", description: "Null until it ends." }),
  expires_at: nullable<string>("string", {
    format: "date-time",
    description:
      "When the job and its results are deleted (JOB_RETENTION after it ended); null until it ends.",
  }),
});
export type JobJson = Static<typeof JobSchema>;

export const JobListSchema = Type.Object({ jobs: Type.Array(JobSchema, { description: "Newest first." }) });

export const CreatedJobSchema = Type.Object({
  id: Type.String(),
  status: Type.Literal("queued"),
  items: Type.Integer({ description: "Input lines stored; each counted one unit of quota." }),
});
type CreatedJob = Static<typeof CreatedJobSchema>;

/**
 * Who asks about jobs: an account (a key of it, or the console; its keys all see each
 * other's jobs), a key without an account, or the operator, who sees every job.
 */
export type { JobOwner };

/** The operator: every job. */
export const OPERATOR: JobOwner = { kind: "operator" };

/** Jobs shown at most in a list. */
const JOBS_LISTED = 1000;
/** Items per batch: stored, claimed and answered as one row (a 100-item job of another owner waits at most one). */
const JOB_BATCH = 500;
/**
 * Batches read per query while results stream: one, so that what a download holds at a
 * time dies young (three downloads of four batches a page grew the heap by 100 MB of
 * promoted garbage before a full collection).
 */
const RESULTS_PAGE = 1;
/**
 * Rows a download writes between two turns of the event loop: a reader as fast as the
 * server (loopback) never makes the socket wait, and a page read from SQLite is
 * synchronous, so without these turns downloads would hold every other request until
 * they end; with a whole batch a turn, three downloads held each turn for 3 × 500 rows.
 */
const RESULTS_ROWS_PER_TURN = 100;

type JobStore = Pick<Store, "jobs">;

function jobJson(job: Job): JobJson {
  const at = (date: Date | null) => (date === null ? null : formatTimestamp(date));
  return {
    id: job.id,
    status: job.status === "uploading" ? "queued" : job.status,
    items: job.items,
    done: job.done,
    counts: job.counts,
    filename: job.filename,
    created_at: formatTimestamp(job.createdAt),
    started_at: at(job.startedAt),
    finished_at: at(job.finishedAt),
    expires_at: at(job.expiresAt),
  };
}

/** The job, when `owner` may see it (the one place that says who owns a job); else `unknown_job`. */
async function ownedJob(store: JobStore, owner: JobOwner, id: string): Promise<Job> {
  const job = await store.jobs.getJob(id);
  if (!job) throw new Refusal("unknown_job", `no job ${id}`);
  if (owner.kind === "operator") return job;
  if (job.owner.kind !== owner.kind || job.owner.id !== owner.id)
    throw new Refusal("unknown_job", `no job ${id}`);
  return job;
}

/** Whether the job's items are still to be checked: queued, running, or paused by its account's suspension. */
function isActive(job: Job): boolean {
  return job.status === "queued" || job.status === "running" || job.status === "paused";
}

export interface Upload {
  body: NodeJS.ReadableStream;
  kind: UploadKind;
  /** `?column=`: the address column's name or number. */
  column: string | undefined;
  /** The uploaded file's name, when the upload named one. */
  filename?: string | null;
}

/** The quota an upload is counted on (one implementation for the API and the console: src/http/job-quota.ts). */
export interface JobQuota {
  /** Units left now; null: unlimited. */
  left(): Promise<number | null>;
  /** Counts `items`, all or nothing; throws (429) when fewer are left; the start of the period counted in. */
  reserve(items: number): Promise<Date>;
  /** Refuses an upload of at least `items` (429), counting nothing. */
  refuse(items: number): Promise<never>;
}

/** A CSV problem's advice in the API's words (it has `?column=`, and no delimiter or encoding parameter). */
function apiAdvice(advice: CsvAdvice): string {
  if (advice.kind === "column") return "name it with ?column=NAME|NUMBER";
  if (advice.kind === "encoding") return "save the file as UTF-8 (or UTF-16 with a BOM) and upload it again";
  const name = advice.delimiter === "\t" ? "tabs" : JSON.stringify(advice.delimiter);
  return `the delimiter is sniffed from the first lines: save the file with ${name} between cells, or with commas`;
}

/**
 * Stores an upload as a queued job of `owner`, its items streamed in batches. The quota
 * comes first: with no unit left the upload is refused before a byte of it is read, and
 * while it arrives its lines are held against the units left (docs/jobs.md "Limits").
 * Then `quota.reserve` counts one unit per item, all or nothing, and throws when fewer
 * are left; nothing is kept of a refused upload.
 */
export async function createJob(
  store: JobStore,
  /** A key (its account, if it has one, owns the job) or an account with no key (the console). */
  filer: JobFiler,
  upload: Upload,
  deps: { limits: UploadLimits; quota: JobQuota; now: Date; spool?: SpoolBytes },
): Promise<CreatedJob> {
  const left = await deps.quota.left();
  if (left === 0) await deps.quota.refuse(1);
  const refuse = (error: unknown) => refuseUpload(error, deps.quota);
  const { shape, batches } = await readUpload(
    upload.body,
    upload.kind,
    upload.column,
    deps.limits,
    JOB_BATCH,
    { unitsLeft: left, ...(deps.spool ? { spool: deps.spool } : {}) },
  ).catch(refuse);
  const id = await store.jobs.startUpload({
    ...filer,
    header: JSON.stringify(shape.header),
    layout: JSON.stringify(shape.layout),
    filename: upload.filename ?? null,
    now: deps.now,
  });
  let queued = false;
  try {
    let count = 0;
    try {
      for await (const batch of batches) {
        await store.jobs.addBatch(id, count, batch);
        count += batch.length;
      }
    } catch (error) {
      await refuse(error);
    }
    if (count === 0)
      throw new Refusal("invalid_body", "the list is empty: send one address or domain per line");
    const periodStart = await deps.quota.reserve(count);
    await store.jobs.queueJob(id, count, periodStart);
    queued = true;
    return { id, status: "queued", items: count };
  } finally {
    if (!queued) await store.jobs.deleteJob(id);
  }
}

/** Why an upload was refused, as the jobs service says it; anything else as it is. */
async function refuseUpload(error: unknown, quota: JobQuota): Promise<never> {
  if (error instanceof QuotaPassed) return quota.refuse(error.lines);
  if (error instanceof UploadTooLarge || error instanceof CsvTooLarge)
    throw new Refusal("body_too_large", error.message);
  if (error instanceof CsvError) throw new Refusal("invalid_body", csvErrorText(error, apiAdvice));
  if (error instanceof SpoolFull) throw new Refusal("server_busy", error.message);
  throw error;
}

export async function listJobs(store: JobStore, owner: JobOwner): Promise<{ jobs: JobJson[] }> {
  return { jobs: (await store.jobs.listJobs(owner, JOBS_LISTED)).map(jobJson) };
}

export async function showJob(store: JobStore, owner: JobOwner, id: string): Promise<JobJson> {
  return jobJson(await ownedJob(store, owner, id));
}

/** What a cancel or a delete needs: the time and JOB_RETENTION. */
export interface JobChange {
  now: Date;
  retentionMs: number;
}

/**
 * Who cancels or deletes, when the audit log records it (`job.cancel`, `job.delete`): the
 * console's account, the CLI or the admin token, with the store the entry is written to.
 * A key's own `DELETE /v2/jobs/<id>` is not an operator's change and names none.
 */
export interface JobActor {
  actor: Actor;
  store: Pick<Store, "audit" | "transaction">;
}

/** Makes a job's change, audited in its transaction when an actor is named. */
function jobChange<T>(
  store: JobStore,
  by: JobActor | undefined,
  change: (store: JobStore) => Promise<T>,
  note: (result: T) => ChangeNote | undefined,
): Promise<T> {
  return by ? audited(by.store, by.actor, change, note) : change(store);
}

/** What the audit log says of a job: its key (null for an account's own) and its size, never its rows. */
function jobDetail(job: Job): Record<string, unknown> {
  return { key: job.keyId, status: job.status, items: job.items, done: job.done };
}

/** Cancels a queued, running or paused job (its unchecked items' units given back); an ended job is answered as it is. */
export async function cancelJob(
  store: JobStore,
  owner: JobOwner,
  id: string,
  deps: JobChange,
  by?: JobActor,
): Promise<JobJson> {
  const job = await ownedJob(store, owner, id);
  if (!isActive(job)) return jobJson(job);
  const ended = await jobChange(
    store,
    by,
    (trx) => trx.jobs.endJob(id, "cancelled", deps.now, deps.retentionMs),
    (ended): ChangeNote | undefined =>
      ended && { action: "job.cancel", entity: { kind: "job", id }, detail: jobDetail(ended) },
  );
  return jobJson(ended ?? (await ownedJob(store, owner, id)));
}

/** `DELETE /v2/jobs/<id>`: cancels an active job (the job, cancelled), deletes an ended one (null). */
export async function removeJob(
  store: JobStore,
  owner: JobOwner,
  id: string,
  deps: JobChange,
  by?: JobActor,
): Promise<JobJson | null> {
  const job = await ownedJob(store, owner, id);
  if (isActive(job)) return cancelJob(store, owner, id, deps, by);
  await jobChange(
    store,
    by,
    (trx) => trx.jobs.deleteJob(id),
    (deleted): ChangeNote | undefined =>
      deleted ? { action: "job.delete", entity: { kind: "job", id }, detail: jobDetail(job) } : undefined,
  );
  return null;
}

/**
 * What an account's change of state does to its jobs (docs/jobs.md "Suspension and
 * deletion"), in the change's transaction: a suspension pauses its queued and running
 * jobs (no batch of theirs is claimed; one in flight is dropped and checked again
 * later), a resume puts them back, a deletion removes every job with its rows (an upload
 * still streaming is refused when it ends, its spool removed). How many jobs it touched.
 */
export function accountJobsFollow(
  store: JobStore,
  accountId: string,
  change: "suspend" | "resume" | "delete",
): Promise<number> {
  switch (change) {
    case "suspend":
      return store.jobs.pauseAccountJobs(accountId);
    case "resume":
      return store.jobs.resumeAccountJobs(accountId);
    case "delete":
      return store.jobs.deleteAccountJobs(accountId);
  }
}

export type ResultsFormat = "csv" | "jsonl";
export type ResultsFilter = "allow" | "block" | "all";

/** What `only=` keeps, as `check --only` keeps it: block keeps blocked and invalid inputs. */
const KEPT: Record<ResultsFilter, readonly Verdict[] | null> = {
  all: null,
  allow: ["allow"],
  block: ["block", "invalid"],
};

/** Whether a job's results can be had: once it is done, or the rows checked before it was cancelled. */
function hasResults(job: Job): boolean {
  return job.status === "done" || job.status === "cancelled";
}

/** The name a job's results download takes: the upload's (`contacts.csv` → `contacts.checked.csv`), else the job's id. */
export function resultsFilename(
  job: Pick<JobJson, "id" | "filename">,
  format: ResultsFormat,
  suffix = "",
): string {
  const stem = (job.filename ?? "")
    .replace(/\.(csv|txt|tsv)$/i, "")
    .replace(/[^\w.-]+/g, "_")
    .slice(0, 100);
  return `${stem === "" || stem === "." || stem === ".." ? job.id : stem}${suffix}.checked.${format}`;
}

/**
 * A done (or cancelled) job's results as text chunks, read page by page: the cleaned
 * CSV, or JSON Lines. A cancelled job's hold the rows checked before the cancel. Cells
 * that would start a formula get a `'` in front unless `raw` (docs/cleaning.md).
 */
export async function jobResults(
  store: JobStore,
  owner: JobOwner,
  id: string,
  query: { format: ResultsFormat; only: ResultsFilter; raw?: boolean },
): Promise<{ job: JobJson; chunks: AsyncGenerator<string> }> {
  const job = await ownedJob(store, owner, id);
  if (!hasResults(job))
    throw new Refusal(
      "job_not_done",
      `job ${id} is ${job.status === "uploading" ? "queued" : job.status}; its results come once it is done (or what was checked, once cancelled)`,
    );
  const verdicts = KEPT[query.only];
  const shape: UploadShape = { header: JSON.parse(job.header), layout: JSON.parse(job.layout) };
  const write = csvWriter(shape.layout, shape.header.length, { raw: query.raw === true });
  async function* chunks(): AsyncGenerator<string> {
    if (query.format === "csv") yield write.header(shape.header);
    for (let after = -1; ; ) {
      const batches = await store.jobs.results(id, after, RESULTS_PAGE);
      if (batches.length === 0) return;
      after = batches.at(-1)?.firstSeq ?? after;
      for (const batch of batches) {
        // A batch never checked (the job was cancelled first) has no results.
        if (batch.results === "") continue;
        let text = "";
        let rows = 0;
        for (const item of decodeBatch(batch)) {
          if (verdicts !== null && !verdicts.includes(item.verdict)) continue;
          text +=
            query.format === "jsonl"
              ? `${item.json()}\n`
              : write.row({ ...(item.row as StoredRow), bytes: 0 }, item.outcome());
          if (++rows % RESULTS_ROWS_PER_TURN === 0) {
            yield text;
            text = "";
            await yieldToRequests();
          }
        }
        if (text !== "") yield text;
        await yieldToRequests();
      }
    }
  }
  return { job: jobJson(job), chunks: chunks() };
}
