/**
 * A checked batch's outcomes are stored deflated (src/store/packed-results.ts, docs/jobs.md
 * "Writes"), on both databases: 500 records of one shape take several times less than
 * their text, read back byte for byte; a batch written before the `packed` column (its
 * text in `results`) reads as it was written; a pending batch reads as no outcomes.
 *
 * @room shared: no bound on time.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { openDatabase } from "../../src/store/database.js";

const T0 = new Date("2026-01-01T00:00:00Z");
const DAY_MS = 86_400_000;
const SIZE = 500;

/** The stored text of a batch of SIZE distinct records, as `encodeOutcomes` writes it. */
function outcomesText(): string {
  const bodies = Array.from({ length: SIZE }, (_, i) =>
    JSON.stringify({
      domain: `domain-${i}.example`,
      valid: true,
      block: i % 7 === 0,
      disposable: false,
      mx: [{ host: `mx${i}.mail-host-${i % 50}.example`, priority: 10 }],
      reason: "The domain has working mail servers.",
      block_status_changed_at: new Date(T0.getTime() + i * 1000).toISOString(),
    }),
  );
  return ["a".repeat(SIZE), bodies.map((_, i) => i).join(","), ...bodies].join("\n");
}

describe.each(DATABASE_KINDS)("a batch's outcomes on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  async function jobOfTwoBatches(): Promise<string> {
    const { jobs } = db.store;
    const id = await jobs.startUpload({ keyId: "k1", header: "[]", layout: "{}", now: T0 });
    for (const first of [0, SIZE]) {
      const items = Array.from({ length: SIZE }, (_, i) => ({
        input: `domain-${i}.example`,
        row: `{"i":${i}}`,
      }));
      await jobs.addBatch(id, first, items);
    }
    await jobs.queueJob(id, 2 * SIZE, T0);
    return id;
  }

  it("stores them deflated, several times smaller, and reads them back byte for byte", async () => {
    const id = await jobOfTwoBatches();
    const claimed = await db.store.jobs.claimBatch("a", T0, new Date(T0.getTime() + 10_000));
    expect(claimed?.firstSeq).toBe(0);
    const text = outcomesText();
    const counts = { allow: SIZE, block: 0, invalid: 0, unknown: 0 };
    await db.store.jobs.finishBatch(id, "a", 0, { results: text, counts }, T0, DAY_MS);

    const raw = await openDatabase(db.database.location, () => {});
    try {
      const stored = await raw
        .selectFrom("job_batches")
        .select(["first_seq", "results", "packed"])
        .where("job_id", "=", id)
        .orderBy("first_seq")
        .execute();
      expect(stored[0]?.results).toBe("");
      expect(stored[0]?.packed?.byteLength ?? Infinity).toBeLessThan(Buffer.byteLength(text) / 4);
      // The second batch is pending: no outcomes, nothing packed.
      expect(stored[1]).toMatchObject({ results: null, packed: null });
    } finally {
      await raw.destroy();
    }
    const [first, second] = await db.store.jobs.results(id, -1, 2);
    expect(first?.results).toBe(text);
    expect(second?.results).toBe("");
  });

  it("reads a batch written before the packed column as its text", async () => {
    const id = await jobOfTwoBatches();
    const raw = await openDatabase(db.database.location, () => {});
    try {
      await raw
        .updateTable("job_batches")
        .set({ results: 'a\n0\n{"valid":true}' })
        .where("job_id", "=", id)
        .where("first_seq", "=", SIZE)
        .execute();
    } finally {
      await raw.destroy();
    }
    const [, second] = await db.store.jobs.results(id, -1, 2);
    expect(second?.results).toBe('a\n0\n{"valid":true}');
  });
});
