import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";

const at = (minute: number) => new Date(Date.UTC(2024, 8, 16, 12, minute));

describe.each(DATABASE_KINDS)("recently checked domains on %s", (kind) => {
  let db: TestStore | undefined;
  afterEach(() => db?.cleanup());

  it("lists domains newest first, each once, with the time of its latest check", async () => {
    db = await openTestStore(kind);
    await db.store.recent.addRecent([{ domain: "a.example", checkedAt: at(1) }]);
    await db.store.recent.addRecent([{ domain: "b.example", checkedAt: at(2) }]);
    await db.store.recent.addRecent([{ domain: "c.example", checkedAt: at(3) }]);
    await db.store.recent.addRecent([{ domain: "a.example", checkedAt: at(4) }]);
    await db.store.recent.addRecent([{ domain: "b.example", checkedAt: at(0) }]); // an older check does not move it back
    expect(await db.store.recent.listRecent(10)).toEqual([
      { domain: "a.example", checkedAt: at(4) },
      { domain: "c.example", checkedAt: at(3) },
      { domain: "b.example", checkedAt: at(2) },
    ]);
    expect(await db.store.recent.listRecent(2)).toHaveLength(2);
  });

  it("keeps about its capacity, always the newest", async () => {
    db = await openTestStore(kind, { recentCapacity: 20 });
    for (let i = 0; i < 50; i++)
      await db.store.recent.addRecent([{ domain: `d${i}.example`, checkedAt: at(i) }]);
    const kept = await db.store.recent.listRecent(100);
    expect(kept.length).toBeGreaterThanOrEqual(20);
    expect(kept.length).toBeLessThanOrEqual(22);
    expect(kept.slice(0, 20).map((r) => r.domain)).toEqual(
      Array.from({ length: 20 }, (_, i) => `d${49 - i}.example`),
    );
  });

  it("marks a batch in one call, each domain once with its newest time", async () => {
    db = await openTestStore(kind);
    await db.store.recent.addRecent([
      { domain: "a.example", checkedAt: at(1) },
      { domain: "b.example", checkedAt: at(5) },
      { domain: "a.example", checkedAt: at(3) },
      { domain: "a.example", checkedAt: at(2) },
    ]);
    await db.store.recent.addRecent([]);
    expect(await db.store.recent.listRecent(10)).toEqual([
      { domain: "b.example", checkedAt: at(5) },
      { domain: "a.example", checkedAt: at(3) },
    ]);
  });
});
