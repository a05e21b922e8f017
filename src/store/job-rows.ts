/** How a `jobs` row reads (src/store/jobs-repository.ts): its columns as a `Job`, its `owner` as whose it is. */
import type { Selectable } from "kysely";
import { toDate } from "./columns.js";
import type { Job, JobHolder, JobStatus } from "./jobs-types.js";
import type { JobsTable } from "./schema.js";

type JobRow = Selectable<JobsTable>;

/** The owner a job's `owner` column names (`account:<id>` or `key:<id>`, migration 0018). */
function holderOf(owner: string): JobHolder {
  const at = owner.indexOf(":");
  const id = owner.slice(at + 1);
  return owner.slice(0, at) === "account" ? { kind: "account", id } : { kind: "key", id };
}

/** A `jobs` row as the job it is. */
export function toJob(row: JobRow): Job {
  const date = (value: number | string | null) => (value === null ? null : toDate(value));
  return {
    id: row.id,
    keyId: row.key_id,
    owner: holderOf(row.owner),
    status: row.status as JobStatus,
    items: Number(row.items),
    done: Number(row.done),
    counts: {
      allow: Number(row.allow_count),
      block: Number(row.block_count),
      invalid: Number(row.invalid_count),
      unknown: Number(row.unknown_count),
    },
    periodStart: toDate(row.period_start),
    header: row.header,
    layout: row.layout,
    filename: row.filename ?? null,
    createdAt: toDate(row.created_at),
    startedAt: date(row.started_at),
    finishedAt: date(row.finished_at),
    expiresAt: date(row.expires_at),
  };
}
