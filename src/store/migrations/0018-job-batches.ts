/**
 * List jobs stored by batch (docs/jobs.md "Running"): one row per batch of an upload's
 * items instead of one per item, claimed and answered whole, so a million-item job costs
 * thousands of statements, not millions; and each job names its owner (the key's account,
 * or the key without one), by which owners take turns. Jobs stored by item are moved
 * into batches, their outcomes kept.
 */
import { type Kysely, sql } from "kysely";

/** Items per batch of a moved job (the upload's own batch size). */
const MOVED_BATCH = 500;

interface OldItem {
  seq: number | string;
  input: string;
  row: string;
  result: string | null;
  verdict: string | null;
}

/** The tables as this migration sees them. */
interface Tables {
  jobs: { id: string };
  job_items: OldItem & { job_id: string };
  job_batches: {
    job_id: string;
    first_seq: number;
    size: number;
    inputs: string;
    rows: string;
    claimed_by: string | null;
    claimed_until: number | null;
    results: string | null;
  };
}

/** A stored outcome without its input: the body the batch keeps once. */
function bodyOf(result: string): string {
  const { input: _input, ...body } = JSON.parse(result) as Record<string, unknown>;
  return JSON.stringify(body);
}

/** The batch's results as src/service/jobs/job-batch.ts writes them: verdicts, refs, then one body per item. */
function resultsOf(items: readonly OldItem[]): string {
  const verdicts = items.map((item) => (item.verdict ?? "allow").charAt(0)).join("");
  const refs = items.map((_, index) => index).join(",");
  return [verdicts, refs, ...items.map((item) => bodyOf(item.result ?? "{}"))].join("\n");
}

async function moveItems(db: Kysely<Tables>): Promise<void> {
  const jobs = await db.selectFrom("jobs").select("id").execute();
  for (const { id } of jobs) {
    for (let after = -1; ; ) {
      const items = await db
        .selectFrom("job_items")
        .select(["seq", "input", "row", "result", "verdict"])
        .where("job_id", "=", id)
        .where("seq", ">", after)
        .orderBy("seq")
        .limit(MOVED_BATCH)
        .execute();
      if (items.length === 0) break;
      after = Number(items.at(-1)?.seq);
      // A batch is answered whole: consecutive items alike (all checked, or all pending) form one.
      const runs: OldItem[][] = [];
      for (const item of items) {
        const last = runs.at(-1);
        if (last && (last[0]?.result === null) === (item.result === null)) last.push(item);
        else runs.push([item]);
      }
      for (const run of runs) {
        const checked = run[0]?.result !== null;
        await db
          .insertInto("job_batches")
          .values({
            job_id: id,
            first_seq: Number(run[0]?.seq),
            size: run.length,
            inputs: JSON.stringify(run.map((item) => item.input)),
            rows: `[${run.map((item) => item.row).join(",")}]`,
            claimed_by: null,
            claimed_until: null,
            results: checked ? resultsOf(run) : null,
          })
          .execute();
      }
    }
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("job_batches")
    .addColumn("job_id", "text", (col) => col.notNull())
    /** The seq (0-based input line of the upload) of the batch's first item. */
    .addColumn("first_seq", "integer", (col) => col.notNull())
    .addColumn("size", "integer", (col) => col.notNull())
    /** JSON array: the input each item checks. */
    .addColumn("inputs", "text", (col) => col.notNull())
    /** JSON array: each item's row (its cells and line), as the cleaned CSV writes them. */
    .addColumn("rows", "text", (col) => col.notNull())
    .addColumn("claimed_by", "text")
    .addColumn("claimed_until", "bigint")
    /** The outcomes (src/service/jobs/job-batch.ts); null while pending. */
    .addColumn("results", "text")
    .addPrimaryKeyConstraint("job_batches_pk", ["job_id", "first_seq"])
    .execute();
  await db.schema
    .createIndex("job_batches_pending")
    .on("job_batches")
    .columns(["job_id", "first_seq"])
    .where(sql.ref("results"), "is", null)
    .execute();
  /** Who takes turns: the key's account, or the key when it has none (`account:<id>` or `key:<id>`). */
  await db.schema
    .alterTable("jobs")
    .addColumn("owner", "text", (col) => col.notNull().defaultTo(""))
    .execute();
  await sql`
    update jobs set owner = coalesce(
      (select 'account:' || k.account_id from api_keys k where k.id = jobs.key_id and k.account_id is not null),
      'key:' || key_id)`.execute(db);
  await db.schema.createIndex("jobs_by_owner").on("jobs").columns(["owner", "served_at"]).execute();
  await moveItems(db as Kysely<Tables>);
  await db.schema.dropTable("job_items").execute();
}
