/**
 * List jobs (docs/jobs.md): a job per upload and one row per batch of its input lines.
 * Every instance claims a batch with one conditional update (as webhook deliveries are
 * claimed), so no batch is checked by two at once; a claim that expires (its instance
 * died) is taken again, and a batch's outcomes are written once, by its holder.
 */
import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { inTransaction } from "./changes.js";
import { toDate } from "./columns.js";
import { toJob } from "./job-rows.js";
import type { FinishedJobBatch, Job, JobFiler, JobsRepository } from "./jobs-types.js";
import { packResults, unpackResults } from "./packed-results.js";
import { refundUnits } from "./quota-give-back.js";
import type { Database } from "./schema.js";
import { enqueueJobEvent } from "./webhooks-repository.js";

/** Statuses of a job whose batches are claimed. */
const ACTIVE = ["queued", "running"] as const;
/** Statuses of a job whose items are still to be checked: a paused one waits for its account's resume. */
const UNFINISHED = [...ACTIVE, "paused"] as const;

/** What a job's webhook event says of it. */
function eventJob(job: Job) {
  return { id: job.id, status: job.status, items: job.items, done: job.done, counts: job.counts };
}

async function selectJob(db: Kysely<Database>, id: string): Promise<Job | undefined> {
  const row = await db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? toJob(row) : undefined;
}

/** The active job with a claimable batch whose owner was served longest ago (then the job, then the oldest). */
async function nextJob(db: Kysely<Database>, t: number): Promise<string | undefined> {
  const { rows } = await sql<{ id: string }>`
    select j.id from jobs j
    where j.status in ('queued', 'running')
      and exists (select 1 from job_batches b where b.job_id = j.id and b.results is null
                    and (b.claimed_until is null or b.claimed_until < ${t}))
    order by (select max(o.served_at) from jobs o where o.owner = j.owner), j.served_at, j.created_at, j.id
    limit 1`.execute(db);
  return rows[0]?.id;
}

async function claimBatch(
  db: Kysely<Database>,
  holder: string,
  now: Date,
  until: Date,
): ReturnType<JobsRepository["claimBatch"]> {
  const t = now.getTime();
  const jobId = await nextJob(db, t);
  if (jobId === undefined) return undefined;
  await db
    .updateTable("jobs")
    .set({ status: "running", served_at: t, started_at: sql`coalesce(started_at, ${t})` })
    .where("id", "=", jobId)
    .where("status", "in", ACTIVE)
    .execute();
  // The conditions are checked again on the row the update locks: a batch another
  // instance claimed meanwhile is not taken (no row comes back).
  const { rows } = await sql<{ first_seq: number | string; inputs: string }>`
    update job_batches set claimed_by = ${holder}, claimed_until = ${until.getTime()}
    where job_id = ${jobId} and results is null and (claimed_until is null or claimed_until < ${t})
      and first_seq = (select first_seq from job_batches where job_id = ${jobId} and results is null
                         and (claimed_until is null or claimed_until < ${t}) order by first_seq limit 1)
    returning first_seq, inputs`.execute(db);
  const job = await selectJob(db, jobId);
  if (job?.status !== "running") return undefined;
  const claimed = rows[0];
  if (!claimed) return { job, firstSeq: -1, inputs: [] };
  return { job, firstSeq: Number(claimed.first_seq), inputs: JSON.parse(claimed.inputs) as string[] };
}

async function finishBatch(
  db: Kysely<Database>,
  jobId: string,
  holder: string,
  firstSeq: number,
  { results, counts }: FinishedJobBatch,
  now: Date,
  retentionMs: number,
): Promise<Job | undefined> {
  const t = now.getTime();
  const packed = await packResults(results);
  return db.transaction().execute(async (trx) => {
    // Taken first: a cancel waits for this batch, or this batch sees the cancel.
    const running = await trx
      .updateTable("jobs")
      .set({ served_at: sql`served_at` })
      .where("id", "=", jobId)
      .where("status", "=", "running")
      .executeTakeFirst();
    if (Number(running.numUpdatedRows) === 0) return undefined;
    const { rows } = await sql<{ size: number | string }>`
      update job_batches set results = '', packed = ${packed}, claimed_by = null, claimed_until = null
      where job_id = ${jobId} and first_seq = ${firstSeq} and claimed_by = ${holder} and results is null
      returning size`.execute(trx);
    const stored = rows[0];
    if (!stored) return undefined;
    const { rows: ended } = await sql<{ status: string }>`
      update jobs set done = done + ${Number(stored.size)},
        allow_count = allow_count + ${counts.allow}, block_count = block_count + ${counts.block},
        invalid_count = invalid_count + ${counts.invalid}, unknown_count = unknown_count + ${counts.unknown},
        failing_since = null,
        status = case when done + ${Number(stored.size)} >= items then 'done' else status end,
        finished_at = case when done + ${Number(stored.size)} >= items then ${t} else finished_at end,
        expires_at = case when done + ${Number(stored.size)} >= items then ${t + retentionMs} else expires_at end
      where id = ${jobId}
      returning status`.execute(trx);
    if (ended[0]?.status !== "done") return undefined;
    const job = await selectJob(trx, jobId);
    if (job) await enqueueJobEvent(trx, "job.completed", now, eventJob(job));
    return job;
  });
}

async function endJob(
  db: Kysely<Database>,
  id: string,
  status: "cancelled" | "failed",
  now: Date,
  retentionMs: number,
): Promise<Job | undefined> {
  const t = now.getTime();
  return inTransaction(db, async (trx) => {
    const ended = await trx
      .updateTable("jobs")
      .set({ status, finished_at: t, expires_at: t + retentionMs })
      .where("id", "=", id)
      .where("status", "in", UNFINISHED)
      .executeTakeFirst();
    if (Number(ended.numUpdatedRows) === 0) return undefined;
    const job = await selectJob(trx, id);
    if (!job) return undefined;
    // Items never checked are given back (docs/jobs.md "Quota").
    if (job.items > job.done) {
      const accountId = job.owner.kind === "account" ? job.owner.id : null;
      await refundUnits(trx, { id: job.keyId, accountId }, job.periodStart, job.items - job.done, now);
    }
    if (status === "failed") await enqueueJobEvent(trx, "job.failed", now, eventJob(job));
    return job;
  });
}

/** The ids of the account's jobs: those it takes turns as, and those of its keys. */
function accountJobs(db: Kysely<Database>, accountId: string) {
  return db
    .selectFrom("jobs")
    .select("id")
    .where((eb) =>
      eb.or([
        eb("owner", "=", `account:${accountId}`),
        eb("key_id", "in", eb.selectFrom("api_keys").select("id").where("account_id", "=", accountId)),
      ]),
    );
}

async function pauseAccountJobs(db: Kysely<Database>, accountId: string): Promise<number> {
  return inTransaction(db, async (trx) => {
    const ids = await accountJobs(trx, accountId).where("status", "in", ACTIVE).execute();
    if (ids.length === 0) return 0;
    const jobIds = ids.map((row) => row.id);
    await trx.updateTable("jobs").set({ status: "paused" }).where("id", "in", jobIds).execute();
    // Claims in flight are given up: their outcomes are dropped (the job is not running),
    // and on resume the batches are claimed again at once.
    await trx
      .updateTable("job_batches")
      .set({ claimed_by: null, claimed_until: null })
      .where("job_id", "in", jobIds)
      .where("results", "is", null)
      .execute();
    return jobIds.length;
  });
}

async function deleteAccountJobs(db: Kysely<Database>, accountId: string): Promise<number> {
  return inTransaction(db, async (trx) => {
    const jobIds = (await accountJobs(trx, accountId).execute()).map((row) => row.id);
    if (jobIds.length === 0) return 0;
    await trx.deleteFrom("job_batches").where("job_id", "in", jobIds).execute();
    await trx.deleteFrom("jobs").where("id", "in", jobIds).execute();
    return jobIds.length;
  });
}

/** Deletes up to `limit` batches of one expired (or abandoned) job, then the job once it has none. */
export async function pruneJobs(
  db: Kysely<Database>,
  now: Date,
  abandonedBefore: Date,
  limit: number,
): Promise<number> {
  const expired = await db
    .selectFrom("jobs")
    .select("id")
    .where((eb) =>
      eb.or([
        eb("expires_at", "<", now.getTime()),
        eb.and([eb("status", "=", "uploading"), eb("created_at", "<", abandonedBefore.getTime())]),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  if (!expired) return 0;
  const { numAffectedRows } = await sql`
    delete from job_batches where job_id = ${expired.id} and first_seq in (
      select first_seq from job_batches where job_id = ${expired.id} order by first_seq limit ${limit})`.execute(
    db,
  );
  const deleted = Number(numAffectedRows ?? 0n);
  if (deleted < limit) {
    await db.deleteFrom("jobs").where("id", "=", expired.id).execute();
    return deleted + 1;
  }
  return deleted;
}

/** The key a job is filed under (none for an account's own) and its `owner`: the account, or the key without one. */
async function ownerOf(
  db: Kysely<Database>,
  filer: JobFiler,
): Promise<{ keyId: string | null; owner: string }> {
  if ("accountId" in filer) return { keyId: null, owner: `account:${filer.accountId}` };
  const key = await db
    .selectFrom("api_keys")
    .select("account_id")
    .where("id", "=", filer.keyId)
    .executeTakeFirst();
  return {
    keyId: filer.keyId,
    owner: key?.account_id ? `account:${key.account_id}` : `key:${filer.keyId}`,
  };
}

export function createJobsRepository(db: Kysely<Database>): JobsRepository {
  return {
    startUpload: async ({ header, layout, filename = null, now, ...filer }) => {
      const id = `job_${randomBytes(12).toString("hex")}`;
      const t = now.getTime();
      const { keyId, owner } = await ownerOf(db, filer);
      await db
        .insertInto("jobs")
        .values({
          id,
          key_id: keyId,
          status: "uploading",
          items: 0,
          done: 0,
          allow_count: 0,
          block_count: 0,
          invalid_count: 0,
          unknown_count: 0,
          period_start: t,
          header,
          layout,
          filename,
          created_at: t,
          started_at: null,
          finished_at: null,
          expires_at: null,
          served_at: 0,
          failing_since: null,
          owner,
        })
        .execute();
      return id;
    },
    addBatch: async (jobId, firstSeq, items) => {
      if (items.length === 0) return;
      await db
        .insertInto("job_batches")
        .values({
          job_id: jobId,
          first_seq: firstSeq,
          size: items.length,
          inputs: JSON.stringify(items.map((item) => item.input)),
          // Each row is JSON already: the array is written around them, not encoded again.
          rows: `[${items.map((item) => item.row).join(",")}]`,
          claimed_by: null,
          claimed_until: null,
          results: null,
        })
        .execute();
    },
    queueJob: async (jobId, items, periodStart) => {
      await db
        .updateTable("jobs")
        .set({ status: "queued", items, period_start: periodStart.getTime() })
        .where("id", "=", jobId)
        .where("status", "=", "uploading")
        .execute();
    },
    deleteJob: (jobId) =>
      inTransaction(db, async (trx) => {
        await trx.deleteFrom("job_batches").where("job_id", "=", jobId).execute();
        const deleted = await trx.deleteFrom("jobs").where("id", "=", jobId).executeTakeFirst();
        return Number(deleted.numDeletedRows) > 0;
      }),
    getJob: async (id) => {
      const job = await selectJob(db, id);
      return job?.status === "uploading" ? undefined : job;
    },
    listJobs: async (owner, limit) => {
      let query = db.selectFrom("jobs").selectAll().where("status", "!=", "uploading");
      // `owner` names the account of the job's key, or the key without one (migration 0018).
      if (owner.kind !== "operator") query = query.where("owner", "=", `${owner.kind}:${owner.id}`);
      const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
      return rows.map(toJob);
    },
    claimBatch: (holder, now, until) => claimBatch(db, holder, now, until),
    renewClaim: async (jobId, holder, firstSeq, until) => {
      await db
        .updateTable("job_batches")
        .set({ claimed_until: until.getTime() })
        .where("job_id", "=", jobId)
        .where("first_seq", "=", firstSeq)
        .where("claimed_by", "=", holder)
        .where("results", "is", null)
        .execute();
    },
    finishBatch: (jobId, holder, firstSeq, finished, now, retentionMs) =>
      finishBatch(db, jobId, holder, firstSeq, finished, now, retentionMs),
    endJob: (id, status, now, retentionMs) => endJob(db, id, status, now, retentionMs),
    noteFailure: async (jobId, now) => {
      const row = await db
        .updateTable("jobs")
        .set({ failing_since: sql`coalesce(failing_since, ${now.getTime()})` })
        .where("id", "=", jobId)
        .where("status", "in", ACTIVE)
        .returning("failing_since")
        .executeTakeFirst();
      return row?.failing_since == null ? undefined : toDate(row.failing_since);
    },
    releaseClaim: async (jobId, holder, firstSeq) => {
      await db
        .updateTable("job_batches")
        .set({ claimed_by: null, claimed_until: null })
        .where("job_id", "=", jobId)
        .where("first_seq", "=", firstSeq)
        .where("claimed_by", "=", holder)
        .where("results", "is", null)
        .execute();
    },
    pauseAccountJobs: (accountId) => pauseAccountJobs(db, accountId),
    resumeAccountJobs: async (accountId) => {
      const resumed = await db
        .updateTable("jobs")
        .set({ status: sql`case when started_at is null then 'queued' else 'running' end` })
        .where("id", "in", accountJobs(db, accountId))
        .where("status", "=", "paused")
        .executeTakeFirst();
      return Number(resumed.numUpdatedRows);
    },
    deleteAccountJobs: (accountId) => deleteAccountJobs(db, accountId),
    results: async (jobId, afterSeq, limit) => {
      const rows = await db
        .selectFrom("job_batches")
        .select(["first_seq", "rows", "inputs", "results", "packed"])
        .where("job_id", "=", jobId)
        .where("first_seq", ">", afterSeq)
        .orderBy("first_seq")
        .limit(limit)
        .execute();
      return Promise.all(
        rows.map(async (row) => ({
          firstSeq: Number(row.first_seq),
          rows: row.rows,
          inputs: row.inputs,
          results: await unpackResults(row),
        })),
      );
    },
    countByStatus: async () => {
      const rows = await db
        .selectFrom("jobs")
        .select(["status", (eb) => eb.fn.countAll<number | string>().as("count")])
        .where("status", "!=", "uploading")
        .groupBy("status")
        .execute();
      return new Map(rows.map((row) => [row.status, Number(row.count)]));
    },
  };
}
