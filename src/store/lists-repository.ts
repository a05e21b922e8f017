/**
 * Synced disposable lists (docs/data.md, "Synced lists"): per source, the version in
 * force and the one before it, each with its entries and when the source first listed
 * each (`domain<TAB>epoch ms` lines, sorted), and the source's last attempt; and the
 * policy: which sources are in force for every process.
 */
import { setImmediate } from "node:timers/promises";
import type { Kysely, Selectable } from "kysely";
import { withoutCredentials } from "../core/web-url.js";
import { inTransaction } from "./changes.js";
import { toDate } from "./columns.js";
import type {
  ListPolicy,
  ListSourceState,
  ListsRepository,
  ListVersion,
  ListVersionInForce,
  ListVersionSummary,
} from "./lists-types.js";
import type { Database, ListVersionsTable } from "./schema.js";

function encodeEntries(entries: ReadonlyMap<string, number>): string {
  return [...entries.keys()]
    .sort()
    .map((domain) => `${domain}\t${entries.get(domain)}`)
    .join("\n");
}

/** Lines decoded between two yields to the event loop: a server loads a version while it answers checks. */
const DECODE_SLICE = 10_000;

/** The entries' lines in batches, a yield to the event loop after each. */
async function* entryBatches(text: string): AsyncGenerator<[string, number][]> {
  let batch: [string, number][] = [];
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline;
    const tab = text.indexOf("\t", start);
    batch.push([text.slice(start, tab), Number(text.slice(tab + 1, end))]);
    start = end + 1;
    if (batch.length === DECODE_SLICE) {
      yield batch;
      batch = [];
      await setImmediate();
    }
  }
  if (batch.length > 0) yield batch;
}

async function decodeEntries(text: string): Promise<Map<string, number>> {
  const entries = new Map<string, number>();
  for await (const batch of entryBatches(text)) for (const [domain, at] of batch) entries.set(domain, at);
  return entries;
}

async function version(row: Selectable<ListVersionsTable>): Promise<ListVersion> {
  return {
    source: row.source,
    hash: row.hash,
    // A URL stored before credentials were refused is never read back with them.
    url: withoutCredentials(row.url),
    acceptedAt: toDate(row.accepted_at),
    entries: await decodeEntries(row.entries),
  };
}

async function currentVersion(db: Kysely<Database>, source: string): Promise<ListVersion | undefined> {
  const row = await db
    .selectFrom("list_versions")
    .selectAll()
    .where("state", "=", "current")
    .where("source", "=", source)
    .executeTakeFirst();
  return row === undefined ? undefined : version(row);
}

/** The query now (its errors are the store's), the entries decoded while they are read. */
async function currentEntries(
  db: Kysely<Database>,
  source: string,
): Promise<AsyncIterable<[string, number][]>> {
  const row = await db
    .selectFrom("list_versions")
    .select("entries")
    .where("state", "=", "current")
    .where("source", "=", source)
    .executeTakeFirst();
  return entryBatches(row?.entries ?? "");
}

async function versionsInForce(
  db: Kysely<Database>,
  sources: readonly string[],
): Promise<ListVersionInForce[]> {
  if (sources.length === 0) return [];
  const rows = await db
    .selectFrom("list_versions")
    .select(["source", "hash", "entry_count", "accepted_at"])
    .where("state", "=", "current")
    .where("source", "in", sources)
    .orderBy("source")
    .execute();
  return rows.map((row) => ({
    source: row.source,
    hash: row.hash,
    entryCount: row.entry_count,
    acceptedAt: toDate(row.accepted_at),
  }));
}

async function listStates(db: Kysely<Database>): Promise<ListSourceState[]> {
  const [sources, versions] = await Promise.all([
    db.selectFrom("list_sources").selectAll().orderBy("source").execute(),
    db
      .selectFrom("list_versions")
      .select(["source", "state", "hash", "entry_count", "accepted_at"])
      .execute(),
  ]);
  const summary = (source: string, state: string): ListVersionSummary | null => {
    const row = versions.find((v) => v.source === source && v.state === state);
    return row ? { hash: row.hash, entryCount: row.entry_count, acceptedAt: toDate(row.accepted_at) } : null;
  };
  return sources.map((row) => ({
    source: row.source,
    url: withoutCredentials(row.url),
    lastAttempt: toDate(row.last_attempt),
    lastSuccess: row.last_success === null ? null : toDate(row.last_success),
    lastError: row.last_error === null ? null : withoutCredentials(row.last_error),
    current: summary(row.source, "current"),
    previous: summary(row.source, "previous"),
  }));
}

async function recordAttempt(
  db: Kysely<Database>,
  source: string,
  url: string,
  at: Date,
  error: string | null,
): Promise<void> {
  const success = error === null ? at.getTime() : null;
  await db
    .insertInto("list_sources")
    .values({ source, url, last_attempt: at.getTime(), last_success: success, last_error: error })
    .onConflict((oc) =>
      oc.column("source").doUpdateSet((eb) => ({
        url,
        last_attempt: at.getTime(),
        last_error: error,
        last_success: error === null ? at.getTime() : eb.ref("list_sources.last_success"),
      })),
    )
    .execute();
}

/** In one transaction: the previous version goes, the current one becomes previous, the new one current. */
async function acceptVersion(db: Kysely<Database>, accepted: ListVersion): Promise<void> {
  await inTransaction(db, async (trx) => {
    const { source } = accepted;
    await trx
      .deleteFrom("list_versions")
      .where("source", "=", source)
      .where("state", "=", "previous")
      .execute();
    await trx
      .updateTable("list_versions")
      .set({ state: "previous" })
      .where("source", "=", source)
      .where("state", "=", "current")
      .execute();
    await trx
      .insertInto("list_versions")
      .values({
        source,
        state: "current",
        hash: accepted.hash,
        entries: encodeEntries(accepted.entries),
        entry_count: accepted.entries.size,
        url: accepted.url,
        accepted_at: accepted.acceptedAt.getTime(),
      })
      .execute();
  });
}

/**
 * Swaps the current and previous versions (through a third state, as both are the primary
 * key). With `toBundled`, a source without a previous version returns to its bundled one:
 * its current version becomes the previous one, and none is current.
 */
async function rollback(db: Kysely<Database>, source: string, toBundled: boolean): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const states = await trx
      .selectFrom("list_versions")
      .select("state")
      .where("source", "=", source)
      .execute();
    const has = (state: string) => states.some((s) => s.state === state);
    if (!has("previous") && !(toBundled && has("current"))) return false;
    const swap = (from: string, to: string) =>
      trx
        .updateTable("list_versions")
        .set({ state: to })
        .where("source", "=", source)
        .where("state", "=", from)
        .execute();
    await swap("current", "rolling back");
    await swap("previous", "current");
    await swap("rolling back", "previous");
    return true;
  });
}

async function policy(db: Kysely<Database>): Promise<ListPolicy | undefined> {
  const row = await db.selectFrom("list_policy").selectAll().where("id", "=", 1).executeTakeFirst();
  return row && { sources: row.sources === "" ? [] : row.sources.split("\n"), setAt: toDate(row.set_at) };
}

async function setPolicy(db: Kysely<Database>, sources: readonly string[], at: Date): Promise<boolean> {
  const names = [...new Set(sources)].sort().join("\n");
  return inTransaction(db, async (trx) => {
    const row = await trx.selectFrom("list_policy").select("sources").where("id", "=", 1).executeTakeFirst();
    if (row?.sources === names) return false;
    await trx
      .insertInto("list_policy")
      .values({ id: 1, sources: names, set_at: at.getTime() })
      .onConflict((oc) => oc.column("id").doUpdateSet({ sources: names, set_at: at.getTime() }))
      .execute();
    return true;
  });
}

/** Deletes a source's stored versions and attempts; false when nothing was stored. */
async function removeSource(db: Kysely<Database>, source: string): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const versions = await trx.deleteFrom("list_versions").where("source", "=", source).executeTakeFirst();
    const attempts = await trx.deleteFrom("list_sources").where("source", "=", source).executeTakeFirst();
    return versions.numDeletedRows + attempts.numDeletedRows > 0n;
  });
}

export function createListsRepository(db: Kysely<Database>): ListsRepository {
  return {
    versionsInForce: (sources) => versionsInForce(db, sources),
    currentVersion: (source) => currentVersion(db, source),
    currentEntries: (source) => currentEntries(db, source),
    listStates: () => listStates(db),
    recordAttempt: (source, url, at, error) => recordAttempt(db, source, url, at, error),
    acceptVersion: (accepted) => acceptVersion(db, accepted),
    rollback: (source, toBundled) => rollback(db, source, toBundled),
    policy: () => policy(db),
    setPolicy: (sources, at) => setPolicy(db, sources, at),
    removeSource: (source) => removeSource(db, source),
  };
}
