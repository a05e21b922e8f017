import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { sampleRecord, sampleVerdict } from "../../harness/sample-record.js";

const T1 = new Date("2024-09-16T00:39:22.500Z");
const T2 = new Date("2024-09-17T08:00:00.000Z");
const T3 = new Date("2024-09-18T09:30:00.000Z");
const T4 = new Date("2024-09-19T10:45:00.000Z");

describe.each(DATABASE_KINDS)("records on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("finds nothing for a domain never saved", async () => {
    expect(await db.store.records.getRecord("example.com")).toBeUndefined();
  });

  it("sets block_status_changed_at to the first check's time, whatever the record said", async () => {
    const saved = await db.store.records.saveRecord(sampleRecord(), sampleVerdict(sampleRecord()), T1);
    expect(saved).toEqual(sampleRecord({ block_status_changed_at: "2024-09-16T00:39:22+00:00" }));
    expect(await db.store.records.getRecord("example.com")).toEqual({
      record: saved,
      verdict: { status: "ok", heaviest: null },
      checkedAt: T1,
    });
  });

  it("keeps block_status_changed_at while block stays, and moves it when block flips", async () => {
    await db.store.records.saveRecord(
      sampleRecord({ risk: 10 }),
      sampleVerdict(sampleRecord({ risk: 10 })),
      T1,
    );
    const same = await db.store.records.saveRecord(
      sampleRecord({ risk: 20 }),
      sampleVerdict(sampleRecord({ risk: 20 })),
      T2,
    );
    expect(same).toMatchObject({ risk: 20, block_status_changed_at: "2024-09-16T00:39:22+00:00" });

    const flipped = await db.store.records.saveRecord(
      sampleRecord({ block: true, risk: 90 }),
      sampleVerdict(sampleRecord({ block: true, risk: 90 })),
      T3,
    );
    expect(flipped).toMatchObject({ block: true, block_status_changed_at: "2024-09-18T09:30:00+00:00" });

    const back = await db.store.records.saveRecord(
      sampleRecord({ block: false }),
      sampleVerdict(sampleRecord({ block: false })),
      T4,
    );
    expect(back.block_status_changed_at).toBe("2024-09-19T10:45:00+00:00");
    expect(await db.store.records.getRecord("example.com")).toEqual({
      record: back,
      verdict: { status: "ok", heaviest: null },
      checkedAt: T4,
    });
  });

  it("returns the stored record with its fields in the contract's order", async () => {
    await db.store.records.saveRecord(sampleRecord(), sampleVerdict(sampleRecord()), T1);
    const stored = await db.store.records.getRecord("example.com");
    expect(Object.keys(stored?.record ?? {})).toEqual(Object.keys(sampleRecord()));
  });

  it("ignores a save older than the stored record and returns the newer one", async () => {
    const newer = await db.store.records.saveRecord(
      sampleRecord({ block: true, risk: 95 }),
      sampleVerdict(sampleRecord({ block: true, risk: 95 })),
      T3,
    );
    const late = await db.store.records.saveRecord(
      sampleRecord({ block: false, risk: 5 }),
      sampleVerdict(sampleRecord({ block: false, risk: 5 })),
      T2,
    );
    expect(late).toEqual(newer);
    expect(await db.store.records.getRecord("example.com")).toEqual({
      record: newer,
      verdict: { status: "risky", heaviest: null },
      checkedAt: T3,
    });
  });

  it("keeps domains apart", async () => {
    await db.store.records.saveRecord(
      sampleRecord({ domain: "a.example", block: true }),
      sampleVerdict(sampleRecord({ domain: "a.example", block: true })),
      T1,
    );
    await db.store.records.saveRecord(
      sampleRecord({ domain: "b.example" }),
      sampleVerdict(sampleRecord({ domain: "b.example" })),
      T2,
    );
    expect((await db.store.records.getRecord("a.example"))?.record).toMatchObject({
      block: true,
      domain: "a.example",
    });
    expect((await db.store.records.getRecord("b.example"))?.checkedAt).toEqual(T2);
  });

  it("keeps the verdict saved beside the record, and replaces it with the record", async () => {
    const verdict = { status: "risky" as const, heaviest: "possible_typo" };
    await db.store.records.saveRecord(sampleRecord({ risk: 35 }), verdict, T1);
    expect((await db.store.records.getRecord("example.com"))?.verdict).toEqual(verdict);
    await db.store.records.saveRecord(sampleRecord(), { status: "ok", heaviest: null }, T2);
    expect((await db.store.records.getRecord("example.com"))?.verdict).toEqual({
      status: "ok",
      heaviest: null,
    });
  });
});
