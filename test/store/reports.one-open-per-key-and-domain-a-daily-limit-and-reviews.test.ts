/**
 * The reports repository on both databases: a key's open report of a domain is returned
 * instead of a second one, the daily limit holds exactly under concurrency across two
 * store instances, the queue is ordered by distinct reporters, and a review closes the
 * open reports of the domain expecting the same answer, once.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { DAY_MS } from "../../src/core/time.js";
import type { ExpectedAnswer, FiledReport, Store } from "../../src/store/index.js";

const NOW = new Date("2026-11-25T12:00:00Z");
const LIMIT = { max: 5, windowMs: DAY_MS };

describe.each(DATABASE_KINDS)("reports on %s", (kind) => {
  let db: TestStore;
  let keys: string[];
  beforeEach(async () => {
    db = await openTestStore(kind);
    keys = [];
    for (let i = 0; i < 3; i++) keys.push((await db.store.keys.createKey({ plan: "free", now: NOW })).key.id);
  });
  afterEach(() => db.cleanup());

  const file = (
    store: Store,
    keyId: string,
    domain: string,
    options: { expected?: ExpectedAnswer; at?: Date; limit?: typeof LIMIT } = {},
  ): Promise<FiledReport> =>
    store.reports.fileReport(
      { keyId, domain, expected: options.expected ?? "block", note: null, filedAt: options.at ?? NOW },
      options.limit ?? LIMIT,
    );

  function filedId(filed: FiledReport): string {
    if (!("report" in filed)) throw new Error(filed.outcome);
    return filed.report.id;
  }

  it("files a report and returns a key's open report of the same domain instead of a second", async () => {
    const first = await file(db.store, keys[0] as string, "shop.example");
    expect(first).toMatchObject({ outcome: "filed", report: { status: "open", domain: "shop.example" } });
    expect(filedId(first)).toMatch(/^rpt_[a-z2-9]{12}$/);
    const again = await file(db.store, keys[0] as string, "shop.example", { expected: "allow" });
    expect(again).toMatchObject({ outcome: "duplicate", report: { id: filedId(first), expected: "block" } });
    expect(await file(db.store, keys[1] as string, "shop.example")).toMatchObject({ outcome: "filed" });
    expect(await db.store.reports.getReport(filedId(first))).toMatchObject({
      keyId: keys[0],
      filedAt: NOW,
      reviewedAt: null,
    });
    expect(await db.store.reports.getReport("rpt_unknown")).toBeUndefined();
  });

  it("files at most the limit in a day, and again once the oldest leaves the window", async () => {
    const key = keys[0] as string;
    for (let i = 0; i < LIMIT.max; i++) {
      const at = new Date(NOW.getTime() + i * 60_000);
      expect(await file(db.store, key, `d${i}.example`, { at })).toMatchObject({ outcome: "filed" });
    }
    const later = new Date(NOW.getTime() + 3_600_000);
    expect(await file(db.store, key, "more.example", { at: later })).toEqual({
      outcome: "limited",
      retryAt: new Date(NOW.getTime() + DAY_MS),
    });
    // Another key is not limited by this one's reports.
    expect(await file(db.store, keys[1] as string, "more.example", { at: later })).toMatchObject({
      outcome: "filed",
    });
    const nextDay = new Date(NOW.getTime() + DAY_MS + 1);
    expect(await file(db.store, key, "more.example", { at: nextDay })).toMatchObject({ outcome: "filed" });
  });

  // Two SQLite connections in one process would wait for each other synchronously (better-sqlite3):
  // on SQLite the instances are processes, each with its one connection, as cluster workers are.
  it("keeps a refusal only to count it towards the limit: never shown, never read", async () => {
    const key = keys[0] as string;
    for (let i = 0; i < LIMIT.max - 1; i++) {
      const refused = await db.store.reports.fileReport(
        { keyId: key, domain: `r${i}.example`, expected: "allow", note: null, filedAt: NOW, refused: true },
        LIMIT,
      );
      expect(refused).toEqual({ outcome: "refused" });
    }
    const last = await file(db.store, key, "real.example");
    expect(last).toMatchObject({ outcome: "filed" });
    expect((await file(db.store, key, "more.example")).outcome).toBe("limited");
    expect((await db.store.reports.listReports("open", 100)).map((r) => r.domain)).toEqual(["real.example"]);
    // A refusal is no open report: the domain may be reported by the key.
    expect(await file(db.store, keys[1] as string, "r0.example")).toMatchObject({ outcome: "filed" });
    // Out of the window, the key's refusals no longer count (and are let go as it files).
    const nextDay = new Date(NOW.getTime() + DAY_MS + 1);
    for (let i = 0; i < LIMIT.max; i++) {
      expect(await file(db.store, key, `later${i}.example`, { at: nextDay })).toMatchObject({
        outcome: "filed",
      });
    }
  });

  it("files exactly the limit of 40 parallel reports over two instances, and one of 20 of one domain", async () => {
    const stores = kind === "postgres" ? [db.store, await db.openAnother()] : [db.store];
    const key = keys[0] as string;
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) => file(stores[i % stores.length] as Store, key, `p${i}.example`)),
    );
    expect(many.filter((f) => f.outcome === "filed")).toHaveLength(LIMIT.max);
    expect(many.filter((f) => f.outcome === "limited")).toHaveLength(40 - LIMIT.max);

    const same = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        file(stores[i % stores.length] as Store, keys[1] as string, "same.example", {
          limit: { max: 100, windowMs: DAY_MS },
        }),
      ),
    );
    expect(same.filter((f) => f.outcome === "filed")).toHaveLength(1);
    expect(new Set(same.map(filedId)).size).toBe(1);
  });

  it("lists open reports by distinct reporters, then oldest first", async () => {
    const [a, b, c] = keys as [string, string, string];
    const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
    await file(db.store, a, "lonely.example", { at: at(0) });
    await file(db.store, a, "popular.example", { at: at(1) });
    await file(db.store, b, "popular.example", { at: at(2), expected: "allow" });
    await file(db.store, c, "popular.example", { at: at(3) });
    await file(db.store, b, "pair.example", { at: at(4) });
    await file(db.store, c, "pair.example", { at: at(5) });
    const queue = await db.store.reports.listReports("open", 100);
    expect(queue.map((r) => [r.domain, r.reporters])).toEqual([
      ["popular.example", 3],
      ["popular.example", 3],
      ["popular.example", 3],
      ["pair.example", 2],
      ["pair.example", 2],
      ["lonely.example", 1],
    ]);
    expect(await db.store.reports.listReports("open", 2)).toHaveLength(2);
    expect(await db.store.reports.listReports("accepted", 100)).toEqual([]);
  });

  it("closes the open reports of the domain expecting the same answer, once", async () => {
    const [a, b, c] = keys as [string, string, string];
    const first = filedId(await file(db.store, a, "shop.example"));
    const second = filedId(await file(db.store, b, "shop.example"));
    const opposite = filedId(await file(db.store, c, "shop.example", { expected: "allow" }));
    const reviewedAt = new Date(NOW.getTime() + 60_000);
    const closed = await db.store.reports.closeReports(first, "accepted", "confirmed", reviewedAt);
    expect(closed).toEqual({
      outcome: "closed",
      report: expect.objectContaining({ id: first, status: "accepted", reviewedAt, reviewNote: "confirmed" }),
      closed: [first, second].sort(),
    });
    expect(await db.store.reports.getReport(second)).toMatchObject({ status: "accepted", reviewedAt });
    expect(await db.store.reports.getReport(opposite)).toMatchObject({ status: "open" });
    expect(await db.store.reports.closeReports(second, "rejected", null, reviewedAt)).toMatchObject({
      outcome: "not_open",
      report: { status: "accepted" },
    });
    expect(await db.store.reports.closeReports("rpt_none", "rejected", null, reviewedAt)).toEqual({
      outcome: "unknown",
    });
    // Closed, the key may report the domain again.
    expect(await file(db.store, a, "shop.example")).toMatchObject({ outcome: "filed" });
    expect((await db.store.reports.listReports("accepted", 10)).map((r) => [r.id, r.reporters])).toEqual(
      expect.arrayContaining([
        [first, 2],
        [second, 2],
      ]),
    );
  });
});
