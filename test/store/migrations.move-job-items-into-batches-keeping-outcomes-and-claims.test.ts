/**
 * Migration 0018 (docs/jobs.md "Running"): jobs stored one row per item by 0016 are moved
 * into batches, on both databases. Answered items keep their outcome byte for byte and
 * their verdict; items not yet answered become batches a runner claims and answers;
 * each job gets its owner (the key's account, or the key); the old table is gone.
 */
import { type Kysely, type Migration, Migrator, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../../harness/databases.js";
import { decodeBatch } from "../../src/service/jobs/job-batch.js";
import { openDatabase } from "../../src/store/database.js";
import type { JobResultBatch, Store } from "../../src/store/index.js";
import { openStore } from "../../src/store/index.js";
import { migrations } from "../../src/store/migrations/index.js";

const MOVING = "0018_job_batches";

/** An item as 0016 stored it: its outcome's JSON starts with its input, as `check --json` writes it. */
function item(seq: number, input: string, verdict: "allow" | "block" | "invalid" | null) {
  const body =
    verdict === "invalid"
      ? { code: "invalid_input", detail: "not an address" }
      : {
          valid: true,
          block: verdict === "block",
          risk: verdict === "block" ? 90 : 10,
          domain: input.split("@")[1],
        };
  return {
    seq,
    input,
    row: JSON.stringify({ cells: [String(seq), input], line: seq + 2 }),
    claimed_by: null,
    claimed_until: null,
    result: verdict === null ? null : JSON.stringify({ input, ...body }),
    verdict,
  };
}

/** Job one: answered, answered, pending, pending, answered (three batches); job two: all answered. */
const ITEMS = {
  job_one: [
    item(0, "a@one.test", "allow"),
    item(1, "b@two.test", "block"),
    item(2, "c@one.test", null),
    item(3, "d@three.test", null),
    item(4, "not an address", "invalid"),
  ],
  job_two: [item(0, "e@one.test", "allow"), item(1, "f@two.test", "allow")],
};

describe.each(DATABASE_KINDS)("migration 0018 on %s", (kind) => {
  let database: TestDatabase;
  let store: Store | undefined;

  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await database.drop();
  });

  /** The database as 0017 left it, with two jobs stored by item. */
  async function jobsStoredByItem(): Promise<void> {
    const db = await openDatabase(database.location, () => {});
    const names = Object.keys(migrations);
    const before = Object.fromEntries(
      names.slice(0, names.indexOf(MOVING)).map((name) => [name, migrations[name] as Migration]),
    );
    await new Migrator({ db, provider: { getMigrations: async () => before } }).migrateToLatest();
    await sql`insert into accounts (id, email, password_hash, role, plan, state, created_at)
      values ('acc_1', 'owner@example.com', null, 'member', 'free', 'active', 1)`.execute(db);
    await sql`insert into api_keys (id, prefix, hash, name, plan, created_at, account_id)
      values ('key_1', 'mr_a', 'h1', null, 'free', 1, null), ('key_2', 'mr_b', 'h2', null, 'free', 1, 'acc_1')`.execute(
      db,
    );
    const job = (id: string, keyId: string, status: string, done: number, counts: number[]) => ({
      id,
      key_id: keyId,
      status,
      items: ITEMS[id as keyof typeof ITEMS].length,
      done,
      allow_count: counts[0],
      block_count: counts[1],
      invalid_count: counts[2],
      unknown_count: 0,
      period_start: 1,
      header: JSON.stringify(["id", "email"]),
      layout: JSON.stringify({
        bom: false,
        recordDelimiter: "\n",
        delimiter: ",",
        sniffed: true,
        encoding: "utf-8",
      }),
      created_at: 1,
      started_at: 2,
      finished_at: status === "done" ? 3 : null,
      expires_at: status === "done" ? 4_000_000_000_000 : null,
      served_at: 2,
    });
    const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await untyped
      .insertInto("jobs")
      .values([
        job("job_one", "key_1", "running", 3, [1, 1, 1]),
        job("job_two", "key_2", "done", 2, [2, 0, 0]),
      ])
      .execute();
    for (const [jobId, items] of Object.entries(ITEMS))
      await untyped
        .insertInto("job_items")
        .values(items.map((one) => ({ job_id: jobId, ...one })))
        .execute();
    await db.destroy();
  }

  /** Every batch of a job, from the repository. */
  async function batchesOf(jobId: string): Promise<JobResultBatch[]> {
    return (await store?.jobs.results(jobId, -1, 100)) ?? [];
  }

  it("moves answered items with their outcomes, and pending ones into batches a runner claims", async () => {
    await jobsStoredByItem();
    store = await openStore(database.location);
    const names = Object.keys(migrations);
    expect(await store.migrate()).toEqual(names.slice(names.indexOf(MOVING)));

    // Consecutive items alike form one batch: answered [0, 1], pending [2, 3], answered [4].
    const one = await batchesOf("job_one");
    expect(one.map((batch) => [batch.firstSeq, batch.results === ""])).toEqual([
      [0, false],
      [2, true],
      [4, false],
    ]);
    const answered = [...one.filter((batch) => batch.results !== ""), ...(await batchesOf("job_two"))];
    const read = answered.flatMap((batch) => [...decodeBatch(batch)]);
    const stored = [ITEMS.job_one[0], ITEMS.job_one[1], ITEMS.job_one[4], ...ITEMS.job_two];
    // Each outcome is the stored one byte for byte, with its verdict and row.
    expect(read.map((result) => result.json())).toEqual(stored.map((old) => old?.result));
    expect(read.map((result) => result.verdict)).toEqual(stored.map((old) => old?.verdict));
    expect(read.map((result) => result.row)).toEqual(stored.map((old) => JSON.parse(old?.row ?? "")));

    // The pending items are claimed as one batch, answered, and the job ends done.
    const now = new Date(10_000);
    const claimed = await store.jobs.claimBatch("runner", now, new Date(20_000));
    expect(claimed).toMatchObject({
      job: { id: "job_one", done: 3 },
      firstSeq: 2,
      inputs: ["c@one.test", "d@three.test"],
    });
    expect(await store.jobs.claimBatch("other", now, new Date(20_000))).toBeUndefined();
    const ended = await store.jobs.finishBatch(
      "job_one",
      "runner",
      2,
      {
        results: 'ab\n0,1\n{"valid":true}\n{"valid":true,"block":true}',
        counts: { allow: 1, block: 1, invalid: 0, unknown: 0 },
      },
      now,
      1000,
    );
    expect(ended).toMatchObject({
      status: "done",
      done: 5,
      counts: { allow: 2, block: 2, invalid: 1, unknown: 0 },
    });
    const finished = (await batchesOf("job_one")).flatMap((batch) => [...decodeBatch(batch)]);
    expect(finished.map((result) => [result.input, result.verdict])).toEqual([
      ["a@one.test", "allow"],
      ["b@two.test", "block"],
      ["c@one.test", "allow"],
      ["d@three.test", "block"],
      ["not an address", "invalid"],
    ]);
  });

  it("gives each job its owner and drops the table of items", async () => {
    await jobsStoredByItem();
    store = await openStore(database.location);
    await store.migrate();
    const db = await openDatabase(database.location, () => {});
    try {
      const { rows } = await sql<{
        id: string;
        owner: string;
      }>`select id, owner from jobs order by id`.execute(db);
      expect(rows).toEqual([
        { id: "job_one", owner: "key:key_1" },
        { id: "job_two", owner: "account:acc_1" },
      ]);
      await expect(sql`select count(*) from job_items`.execute(db)).rejects.toThrow();
    } finally {
      await db.destroy();
    }
  });
});
