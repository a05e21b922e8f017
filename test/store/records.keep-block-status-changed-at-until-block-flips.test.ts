/**
 * The record cache's storage (docs/api.md "Storage and caching"): a look-up's facts, when they were found,
 * and the block status answered for the domain with the time it last changed. The time
 * stays while block stays, whether a look-up saved it (`saveFacts`) or an answer decided
 * otherwise (`noteBlock`, first writer wins); a save older than the stored facts changes
 * nothing; a row saved before migration 0007 (a whole record) holds no facts but keeps
 * its block status; purges raise the change signal. On both databases.
 */
import { type Migration, Migrator, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  DATABASE_KINDS,
  openTestStore,
  type TestDatabase,
  type TestStore,
} from "../../harness/databases.js";
import type { DomainFacts } from "../../src/core/check.js";
import { SAMPLE_RECORD } from "../../src/core/record-example.js";
import { openDatabase } from "../../src/store/database.js";
import { openStore } from "../../src/store/index.js";
import { migrations } from "../../src/store/migrations/index.js";

const T1 = new Date("2024-09-16T00:39:22.500Z");
const T2 = new Date("2024-09-17T08:00:00.000Z");
const T3 = new Date("2024-09-18T09:30:00.000Z");
const T4 = new Date("2024-09-19T10:45:00.000Z");

/** What a look-up of a working domain finds, registered in 1995 unless said otherwise. */
function working(domain = "shop.test", createdAt: Date | null = new Date("1995-08-14T04:00:00.123Z")) {
  return {
    routing: {
      status: "mx",
      hosts: [
        { host: `mx1.${domain}`, priority: 10, ips: ["192.0.2.1", "2001:db8::1"] },
        { host: `mx2.${domain}`, priority: 20, ips: [] },
      ],
      nameServers: [`ns1.${domain}`, `ns2.${domain}`],
      addresses: ["192.0.2.80"],
    },
    createdAt,
  } satisfies DomainFacts;
}

const timedOut: DomainFacts = {
  routing: { status: "dns_timeout", hosts: [], nameServers: null, addresses: [] },
  createdAt: null,
};
const gone: DomainFacts = {
  routing: { status: "nxdomain", hosts: [], nameServers: [], addresses: [] },
  createdAt: null,
};

describe.each(DATABASE_KINDS)("records on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("finds nothing for a domain never saved", async () => {
    expect(await db.store.records.getFacts("shop.test")).toBeUndefined();
  });

  it("gives the facts back as saved, with block_status_changed_at at the first save's time", async () => {
    const status = await db.store.records.saveFacts("shop.test", working(), T1, false);
    expect(status).toEqual({ block: false, changedAt: T1 });
    expect(await db.store.records.getFacts("shop.test")).toEqual({
      facts: working(),
      checkedAt: T1,
      block: false,
      changedAt: T1,
    });
    // A failed look-up's facts (no name servers, no age) round-trip too, and a first block.
    expect(await db.store.records.saveFacts("down.test", timedOut, T2, true)).toEqual({
      block: true,
      changedAt: T2,
    });
    expect(await db.store.records.getFacts("down.test")).toEqual({
      facts: timedOut,
      checkedAt: T2,
      block: true,
      changedAt: T2,
    });
  });

  it("keeps block_status_changed_at while block stays, and moves it when block flips", async () => {
    await db.store.records.saveFacts("shop.test", working(), T1, false);
    const younger = working("shop.test", new Date("2024-09-01T00:00:00Z"));
    expect(await db.store.records.saveFacts("shop.test", younger, T2, false)).toEqual({
      block: false,
      changedAt: T1,
    });
    expect(await db.store.records.getFacts("shop.test")).toEqual({
      facts: younger,
      checkedAt: T2,
      block: false,
      changedAt: T1,
    });
    // A look-up decided otherwise keeps the stored status: its flip is recorded by noteBlock.
    expect(await db.store.records.saveFacts("shop.test", gone, T3, true)).toEqual({
      block: false,
      changedAt: T1,
    });
    expect(await db.store.records.noteBlock("shop.test", true, T3)).toEqual({
      block: true,
      changedAt: T3,
      flipped: true,
    });
    expect(await db.store.records.saveFacts("shop.test", working(), T4, false)).toEqual({
      block: true,
      changedAt: T3,
    });
    expect(await db.store.records.noteBlock("shop.test", false, T4)).toEqual({
      block: false,
      changedAt: T4,
      flipped: true,
    });
    expect(await db.store.records.getFacts("shop.test")).toEqual({
      facts: working(),
      checkedAt: T4,
      block: false,
      changedAt: T4,
    });
  });

  it("ignores a save older than the stored facts and returns the stored status", async () => {
    expect(await db.store.records.saveFacts("shop.test", gone, T3, true)).toEqual({
      block: true,
      changedAt: T3,
    });
    expect(await db.store.records.saveFacts("shop.test", working(), T2, false)).toEqual({
      block: true,
      changedAt: T3,
    });
    expect(await db.store.records.getFacts("shop.test")).toEqual({
      facts: gone,
      checkedAt: T3,
      block: true,
      changedAt: T3,
    });
  });

  it("keeps domains apart", async () => {
    await db.store.records.saveFacts("a.test", gone, T1, true);
    await db.store.records.saveFacts("b.test", working("b.test"), T2, false);
    expect(await db.store.records.getFacts("a.test")).toMatchObject({ facts: gone, block: true });
    expect(await db.store.records.getFacts("b.test")).toEqual({
      facts: working("b.test"),
      checkedAt: T2,
      block: false,
      changedAt: T2,
    });
  });

  it("writes the saves of one turn together, each answered with its own domain's status", async () => {
    const { records } = db.store;
    await records.saveFacts("stored.test", gone, T2, true);
    await records.saveFacts("newer.test", gone, T4, true);
    // 45 new domains (statements of 32, 8, 4 and 1 rows), a domain saved twice in the
    // turn, a stored domain, and a save older than the stored facts.
    const domains = Array.from({ length: 45 }, (_, i) => `d${i}.test`);
    const [firstTwice, secondTwice, stored, older, ...saved] = await Promise.all([
      records.saveFacts("twice.test", working("twice.test"), T1, false),
      records.saveFacts("twice.test", gone, T3, true),
      records.saveFacts("stored.test", working("stored.test"), T3, false),
      records.saveFacts("newer.test", working("newer.test"), T3, false),
      ...domains.map((domain, i) => records.saveFacts(domain, working(domain), T1, i % 2 === 0)),
    ]);
    expect(saved).toEqual(domains.map((_, i) => ({ block: i % 2 === 0, changedAt: T1 })));
    for (const [i, domain] of domains.entries()) {
      expect(await records.getFacts(domain)).toEqual({
        facts: working(domain),
        checkedAt: T1,
        block: i % 2 === 0,
        changedAt: T1,
      });
    }
    // The second save of a domain in a turn comes after the first: the row keeps its status.
    expect([firstTwice, secondTwice]).toEqual([
      { block: false, changedAt: T1 },
      { block: false, changedAt: T1 },
    ]);
    expect(await records.getFacts("twice.test")).toEqual({
      facts: gone,
      checkedAt: T3,
      block: false,
      changedAt: T1,
    });
    expect(stored).toEqual({ block: true, changedAt: T2 });
    expect(await records.getFacts("stored.test")).toMatchObject({
      facts: working("stored.test"),
      checkedAt: T3,
    });
    expect(older).toEqual({ block: true, changedAt: T4 });
    expect(await records.getFacts("newer.test")).toMatchObject({ facts: gone, checkedAt: T4 });
  });

  it("saves the same domains from two instances at once, in opposite orders, without a deadlock", async () => {
    const other = await db.openAnother();
    const domains = Array.from({ length: 40 }, (_, i) => `both-${String(i).padStart(2, "0")}.test`);
    for (let round = 0; round < 5; round++) {
      const at = new Date(T1.getTime() + round * 1000);
      // Each instance's 40 saves of one turn: statements of 32 and 8 rows in one transaction.
      const saves = [
        ...domains.map((domain) => db.store.records.saveFacts(domain, working(domain), at, false)),
        ...[...domains]
          .reverse()
          .map((domain) => other.records.saveFacts(domain, working(domain), at, false)),
      ];
      expect(await Promise.all(saves)).toEqual(saves.map(() => ({ block: false, changedAt: T1 })));
    }
    expect(await db.store.records.getFacts("both-39.test")).toMatchObject({
      checkedAt: new Date(T1.getTime() + 4000),
    });
  });

  it("records an answered flip of block (first writer wins), keeping the facts and their time", async () => {
    await db.store.records.saveFacts("shop.test", working(), T1, false);
    const other = await db.openAnother();
    // An override denies the domain: two instances answer it, at T2 and T3.
    expect(await db.store.records.noteBlock("shop.test", true, T2)).toEqual({
      block: true,
      changedAt: T2,
      flipped: true,
    });
    expect(await other.records.noteBlock("shop.test", true, T3)).toEqual({
      block: true,
      changedAt: T2,
      flipped: false,
    });
    expect(await db.store.records.getFacts("shop.test")).toEqual({
      facts: working(),
      checkedAt: T1,
      block: true,
      changedAt: T2,
    });
    // A later look-up with the same block keeps it; lifting the override flips it back.
    expect(await other.records.saveFacts("shop.test", working(), T3, true)).toEqual({
      block: true,
      changedAt: T2,
    });
    expect(await other.records.noteBlock("shop.test", false, T4)).toEqual({
      block: false,
      changedAt: T4,
      flipped: true,
    });
    expect(await db.store.records.getFacts("shop.test")).toMatchObject({ block: false, changedAt: T4 });
  });

  it("notes nothing for a domain it has no facts of", async () => {
    expect(await db.store.records.noteBlock("new.test", true, T1)).toEqual({
      block: true,
      changedAt: T1,
      flipped: false,
    });
    expect(await db.store.records.getFacts("new.test")).toBeUndefined();
  });

  it("raises the records change signal on every purge that removed something, and on nothing else", async () => {
    const counter = async () => (await db.store.changes.versions()).get("records");
    await db.store.records.saveFacts("a.test", working("a.test"), T1, false);
    await db.store.records.saveFacts("b.test", working("b.test"), T1, false);
    await db.store.records.noteBlock("a.test", true, T2);
    expect(await counter()).toBeUndefined();
    expect(await db.store.records.purgeRecords(["a.test"])).toBe(1);
    expect(await counter()).toBe(1);
    expect(await db.store.records.getFacts("a.test")).toBeUndefined();
    expect(await db.store.records.purgeRecords(["a.test", "never.test"])).toBe(0);
    expect(await counter()).toBe(1);
    expect(await db.store.records.purgeAllRecords()).toBe(1);
    expect(await counter()).toBe(2);
    expect(await db.store.records.getFacts("b.test")).toBeUndefined();
    expect(await db.store.records.purgeAllRecords()).toBe(0);
    expect(await counter()).toBe(2);
  });
});

describe.each(DATABASE_KINDS)("a record saved before migration 0007, on %s", (kind) => {
  let database: TestDatabase;
  const closers: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    await database.drop();
  });

  /** A store migrated up to 0006 holding a whole record of `shop.test`, then to the latest. */
  async function storeWithOldRecord(block: boolean) {
    const db = await openDatabase(database.location, () => {});
    const before0007 = Object.fromEntries(
      Object.entries(migrations).filter(([name]) => name < "0007"),
    ) as Record<string, Migration>;
    await new Migrator({ db, provider: { getMigrations: async () => before0007 } }).migrateToLatest();
    const record = JSON.stringify({ ...SAMPLE_RECORD, domain: "shop.test", base_domain: "shop.test", block });
    await sql`insert into records (domain, record, block, checked_at, block_status_changed_at, status, heaviest)
      values ('shop.test', ${record}, ${block ? 1 : 0}, ${T2.getTime()}, ${T1.getTime()}, 'ok', null)`.execute(
      db,
    );
    await db.destroy();
    const store = await openStore(database.location);
    closers.push(() => store.close());
    expect((await store.migrate())[0]).toBe("0007_record_facts_and_changes");
    return store;
  }

  it("reads as no facts, and a save with the same block keeps its block_status_changed_at", async () => {
    const store = await storeWithOldRecord(false);
    expect(await store.records.getFacts("shop.test")).toBeUndefined();
    expect(await store.records.saveFacts("shop.test", working(), T3, false)).toEqual({
      block: false,
      changedAt: T1,
    });
    expect(await store.records.getFacts("shop.test")).toEqual({
      facts: working(),
      checkedAt: T3,
      block: false,
      changedAt: T1,
    });
  });

  it("keeps the old record's block status through the first save; the flip is noted after it", async () => {
    const store = await storeWithOldRecord(true);
    expect(await store.records.getFacts("shop.test")).toBeUndefined();
    expect(await store.records.saveFacts("shop.test", working(), T3, false)).toEqual({
      block: true,
      changedAt: T1,
    });
    expect(await store.records.noteBlock("shop.test", false, T3)).toEqual({
      block: false,
      changedAt: T3,
      flipped: true,
    });
  });
});
