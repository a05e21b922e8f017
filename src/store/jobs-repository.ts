/**
 * List jobs (docs/jobs.md): a job per upload and one row per input line. Every instance
 * claims batches of rows with one conditional update (as webhook deliveries are
 * claimed), so no row is checked by two at once; a claim that expires (its instance
 * died) is taken again, and a row's outcome is written once, by its holder.
 */
import { randomBytes } from "node:crypto";
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from "kysely";
import { refundUnits } from "./quota.js";
import { type Database, type JobsTable, toDate } from "./schema.js";
import type { FinishedJobItem, Job, JobStatus, JobsRepository } from "./types.js";
import { enqueueJobEvent } from "./webhooks-repository.js";

/** Statuses of a job whose items are still to be checked. */
const ACTIVE = ["queued", "running"] as const;

type JobRow = Selectable<JobsTable>;

function toJob(row: JobRow): Job {
  const date = (value: number | string | null) => (value === null ? null : toDate(value));
  return {
    id: row.id,
    keyId: row.key_id,
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
    createdAt: toDate(row.created_at),
    startedAt: date(row.started_at),
    finishedAt: date(row.finished_at),
    expiresAt: date(row.expires_at),
  };
}

/** What a job's webhook event says of it. */
function eventJob(job: Job) {
  return { id: job.id, status: job.status, items: job.items, done: job.done, counts: job.counts };
}

async function selectJob(db: Kysely<Database>, id: string): Promise<Job | undefined> {
  const row = await db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? toJob(row) : undefined;
}

/** The active job with claimable items whose owner was served longest ago (then the job, then the oldest). */
async function nextJob(db: Kysely<Database>, t: number): Promise<string | undefined> {
  const { rows } = await sql<{ id: string }>`
    select j.id from jobs j
    where j.status in ('queued', 'running')
      and exists (select 1 from job_items i where i.job_id = j.id and i.result is null
                    and (i.claimed_until is null or i.claimed_until < ${t}))
    order by (select max(o.served_at) from jobs o where o.key_id = j.key_id), j.served_at, j.created_at, j.id
    limit 1`.execute(db);
  return rows[0]?.id;
}

async function claimItems(
  db: Kysely<Database>,
  holder: string,
  now: Date,
  until: Date,
  limit: number,
): ReturnType<JobsRepository["claimItems"]> {
  const t = now.getTime();
  const jobId = await nextJob(db, t);
  if (jobId === undefined) return undefined;
  await db
    .updateTable("jobs")
    .set({ status: "running", served_at: t, started_at: sql`coalesce(started_at, ${t})` })
    .where("id", "=", jobId)
    .where("status", "in", ACTIVE)
    .execute();
  const free = (eb: ExpressionBuilder<Database, "job_items">) =>
    eb.and([eb("result", "is", null), eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", t)])]);
  const seqs = await db
    .selectFrom("job_items")
    .select("seq")
    .where("job_id", "=", jobId)
    .where(free)
    .orderBy("seq")
    .limit(limit)
    .execute();
  if (seqs.length === 0) return undefined;
  // The conditions are checked again on each row the update locks: a row another
  // instance claimed meanwhile is skipped.
  const rows = await db
    .updateTable("job_items")
    .set({ claimed_by: holder, claimed_until: until.getTime() })
    .where("job_id", "=", jobId)
    .where(
      "seq",
      "in",
      seqs.map((row) => row.seq),
    )
    .where(free)
    .returning(["seq", "input"])
    .execute();
  const job = await selectJob(db, jobId);
  if (job?.status !== "running") return undefined;
  const items = rows.map((row) => ({ seq: Number(row.seq), input: row.input })).sort((a, b) => a.seq - b.seq);
  return { job, items };
}

async function finishItems(
  db: Kysely<Database>,
  jobId: string,
  holder: string,
  items: readonly FinishedJobItem[],
  now: Date,
  retentionMs: number,
): Promise<Job | undefined> {
  if (items.length === 0) return undefined;
  const t = now.getTime();
  return db.transaction().execute(async (trx) => {
    // Taken first: a cancel waits for this batch, or this batch sees the cancel.
    const running = await trx
      .updateTable("jobs")
      .set({ served_at: sql`served_at` })
      .where("id", "=", jobId)
      .where("status", "=", "running")
      .executeTakeFirst();
    if (Number(running.numUpdatedRows) === 0) return undefined;
    const bySeq = new Map(items.map((item) => [item.seq, item]));
    const cases = (pick: (item: FinishedJobItem) => string) =>
      sql.join(
        items.map((item) => sql`when ${item.seq} then ${pick(item)}`),
        sql` `,
      );
    const { rows } = await sql<{ seq: number }>`
      update job_items
      set result = case seq ${cases((item) => item.result)} end,
          verdict = case seq ${cases((item) => item.verdict)} end,
          claimed_by = null, claimed_until = null
      where job_id = ${jobId} and seq in (${sql.join(items.map((item) => item.seq))})
        and claimed_by = ${holder} and result is null
      returning seq`.execute(trx);
    const counts = { allow: 0, block: 0, invalid: 0, unknown: 0 };
    for (const row of rows) {
      const item = bySeq.get(Number(row.seq));
      if (item) counts[item.count]++;
    }
    await trx
      .updateTable("jobs")
      .set({
        done: sql`done + ${rows.length}`,
        allow_count: sql`allow_count + ${counts.allow}`,
        block_count: sql`block_count + ${counts.block}`,
        invalid_count: sql`invalid_count + ${counts.invalid}`,
        unknown_count: sql`unknown_count + ${counts.unknown}`,
      })
      .where("id", "=", jobId)
      .execute();
    const ended = await trx
      .updateTable("jobs")
      .set({ status: "done", finished_at: t, expires_at: t + retentionMs })
      .where("id", "=", jobId)
      .where("status", "=", "running")
      .where("done", ">=", sql<number>`items`)
      .executeTakeFirst();
    if (Number(ended.numUpdatedRows) === 0) return undefined;
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
  return db.transaction().execute(async (trx) => {
    const ended = await trx
      .updateTable("jobs")
      .set({ status, finished_at: t, expires_at: t + retentionMs })
      .where("id", "=", id)
      .where("status", "in", ACTIVE)
      .executeTakeFirst();
    if (Number(ended.numUpdatedRows) === 0) return undefined;
    const job = await selectJob(trx, id);
    if (!job) return undefined;
    // Items never checked are given back (docs/jobs.md "Quota").
    if (job.items > job.done) {
      const owner = await trx
        .selectFrom("api_keys")
        .select("account_id")
        .where("id", "=", job.keyId)
        .executeTakeFirst();
      const accountId = owner?.account_id ?? null;
      await refundUnits(trx, { id: job.keyId, accountId }, job.periodStart, job.items - job.done);
    }
    if (status === "failed") await enqueueJobEvent(trx, "job.failed", now, eventJob(job));
    return job;
  });
}

/** Deletes up to `limit` rows of one expired (or abandoned) job, then the job once it has none. */
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
    delete from job_items where job_id = ${expired.id} and seq in (
      select seq from job_items where job_id = ${expired.id} order by seq limit ${limit})`.execute(db);
  const deleted = Number(numAffectedRows ?? 0n);
  if (deleted < limit) {
    await db.deleteFrom("jobs").where("id", "=", expired.id).execute();
    return deleted + 1;
  }
  return deleted;
}

export function createJobsRepository(db: Kysely<Database>): JobsRepository {
  return {
    startUpload: async ({ keyId, header, layout, now }) => {
      const id = `job_${randomBytes(12).toString("hex")}`;
      const t = now.getTime();
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
          created_at: t,
          started_at: null,
          finished_at: null,
          expires_at: null,
          served_at: 0,
        })
        .execute();
      return id;
    },
    addItems: async (jobId, firstSeq, items) => {
      if (items.length === 0) return;
      await db
        .insertInto("job_items")
        .values(
          items.map((item, index) => ({
            job_id: jobId,
            seq: firstSeq + index,
            input: item.input,
            row: item.row,
          })),
        )
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
      db.transaction().execute(async (trx) => {
        await trx.deleteFrom("job_items").where("job_id", "=", jobId).execute();
        const deleted = await trx.deleteFrom("jobs").where("id", "=", jobId).executeTakeFirst();
        return Number(deleted.numDeletedRows) > 0;
      }),
    getJob: async (id) => {
      const job = await selectJob(db, id);
      return job?.status === "uploading" ? undefined : job;
    },
    accountOfKey: async (keyId) =>
      (await db.selectFrom("api_keys").select("account_id").where("id", "=", keyId).executeTakeFirst())
        ?.account_id ?? null,
    listJobs: async (owner, limit) => {
      let query = db.selectFrom("jobs").selectAll().where("status", "!=", "uploading");
      if (owner?.accountId)
        query = query.where("key_id", "in", (q) =>
          q.selectFrom("api_keys").select("id").where("account_id", "=", owner.accountId),
        );
      else if (owner) query = query.where("key_id", "=", owner.keyId);
      const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
      return rows.map(toJob);
    },
    claimItems: (holder, now, until, limit) => claimItems(db, holder, now, until, limit),
    renewClaims: async (jobId, holder, { first, last }, until) => {
      await db
        .updateTable("job_items")
        .set({ claimed_until: until.getTime() })
        .where("job_id", "=", jobId)
        .where("seq", ">=", first)
        .where("seq", "<=", last)
        .where("claimed_by", "=", holder)
        .where("result", "is", null)
        .execute();
    },
    finishItems: (jobId, holder, items, now, retentionMs) =>
      finishItems(db, jobId, holder, items, now, retentionMs),
    endJob: (id, status, now, retentionMs) => endJob(db, id, status, now, retentionMs),
    results: async (jobId, verdicts, afterSeq, limit) => {
      let query = db
        .selectFrom("job_items")
        .select(["seq", "row", "result"])
        .where("job_id", "=", jobId)
        .where("seq", ">", afterSeq);
      if (verdicts !== null) query = query.where("verdict", "in", verdicts);
      const rows = await query.orderBy("seq").limit(limit).execute();
      return rows.map((row) => ({ seq: Number(row.seq), row: row.row, result: row.result ?? "" }));
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
