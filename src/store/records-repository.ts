/**
 * Domain records (docs/api.md "Storage and caching"): the facts a look-up found (JSON of `DomainFacts`,
 * dates as epoch ms), when, and the block status last answered for the domain with the
 * time it last changed. The verdict itself is decided when answering, never stored.
 */
import { type Kysely, sql } from "kysely";
import type { DomainFacts } from "../core/check.js";
import type { MailRouting } from "../core/mail-routing.js";
import { POLICY_TOPICS } from "./changes-types.js";
import { toDate, toMillis } from "./columns.js";
import { batchSaves, type WriteRounds } from "./records-save-batch.js";
import type {
  BlockStatus,
  FlipNotice,
  NotedBlock,
  RecordsRepository,
  StoredFacts,
  WatchedFacts,
} from "./records-types.js";
import { type RowStatement, retriedOnDeadlock, writeRounds } from "./row-statements.js";
import type { Database } from "./schema.js";
import { enqueueFlipEvents } from "./webhooks-repository.js";

/** The facts as stored. */
interface FactsJson {
  routing: MailRouting;
  createdAt: number | null;
}

function encodeFacts({ routing, createdAt }: DomainFacts): string {
  return JSON.stringify({ routing, createdAt: createdAt?.getTime() ?? null } satisfies FactsJson);
}

/** The facts of a row; null for a row saved before migration 0007, which holds a whole record. */
function decodeFacts(text: string): DomainFacts | null {
  const json = JSON.parse(text) as Partial<FactsJson>;
  if (json.routing === undefined) return null;
  return { routing: json.routing, createdAt: json.createdAt == null ? null : new Date(json.createdAt) };
}

interface BlockRow {
  block: number;
  block_status_changed_at: number | string;
}

function blockStatus(row: BlockRow): BlockStatus {
  return { block: row.block === 1, changedAt: toDate(row.block_status_changed_at) };
}

/** Plain SQL (valid in both dialects): it runs for every domain a server does not remember. */
async function getFacts(db: Kysely<Database>, domain: string): Promise<StoredFacts | undefined> {
  const { rows } = await sql<BlockRow & { facts: string; checked_at: number | string }>`
    select facts, checked_at, block, block_status_changed_at from records where domain = ${domain}`.execute(
    db,
  );
  const row = rows[0];
  const facts = row && decodeFacts(row.facts);
  if (!row || !facts) return undefined;
  return { facts, checkedAt: toDate(row.checked_at), ...blockStatus(row) };
}

async function readBlock(db: Kysely<Database>, domain: string): Promise<BlockStatus | undefined> {
  const row = await db
    .selectFrom("records")
    .select(["block", "block_status_changed_at"])
    .where("domain", "=", domain)
    .executeTakeFirst();
  return row && blockStatus(row);
}

/** What the save statement is given for one domain, by name. */
interface SaveValues {
  domain: string;
  facts: string;
  block: number;
  checked_at: number;
  block_status_changed_at: number;
  last_answered_at: number;
}

/** The save statement: a new row takes the values; a stored one the newer facts only. */
const SAVE: RowStatement<SaveValues> = {
  columns: ["domain", "facts", "block", "checked_at", "block_status_changed_at", "last_answered_at"],
  build: (db, rows) =>
    db
      .insertInto("records")
      .values(rows as never)
      .onConflict((oc) =>
        oc
          .column("domain")
          .doUpdateSet((eb) => ({
            facts: eb.ref("excluded.facts"),
            checked_at: eb.ref("excluded.checked_at"),
          }))
          .where("records.checked_at", "<=", (eb) => eb.ref("excluded.checked_at")),
      )
      .returning(["domain", "block", "block_status_changed_at"]),
};

/** Writes the saves of one turn (records-save-batch.ts): each round's rows given back, by domain. */
function writeSaves(db: Kysely<Database>): WriteRounds<SaveValues, BlockRow> {
  return async (rounds) => {
    const written = await writeRounds<SaveValues, BlockRow & { domain: string }>(db, SAVE, rounds);
    return written.map((rows) => new Map(rows.map((row) => [row.domain, row])));
  };
}

/**
 * One atomic upsert of a look-up's facts, written with the other saves of its turn. A
 * new row takes `block`; a stored row keeps its block status and time, so every flip
 * goes through `noteBlock` (and raises its webhook events there). A save older than the
 * stored facts (another instance finished a later look-up first) changes nothing.
 */
async function saveFacts(
  db: Kysely<Database>,
  save: (values: SaveValues) => Promise<BlockRow | undefined>,
  domain: string,
  facts: DomainFacts,
  checkedAt: Date,
  block: boolean,
): Promise<BlockStatus> {
  const at = checkedAt.getTime();
  const saved = await save({
    domain,
    facts: encodeFacts(facts),
    block: block ? 1 : 0,
    checked_at: at,
    block_status_changed_at: at,
    last_answered_at: at,
  });
  if (saved) return blockStatus(saved);
  return (await readBlock(db, domain)) ?? { block, changedAt: checkedAt };
}

/**
 * Records the block status answered for a domain when it differs from the stored one
 * (a look-up, an override, a list or learned infrastructure changed the verdict): the
 * time it changed becomes `at`. Whoever records a flip first wins (`flipped` says whether
 * this call did); a notice's `policyVersion` that is no longer the store's records nothing; with a notice, the flip's webhook events are written in the same
 * transaction when the domain is watched, so a flip raises its events exactly once.
 */
async function noteBlock(
  db: Kysely<Database>,
  domain: string,
  block: boolean,
  at: Date,
  notice?: FlipNotice,
): Promise<NotedBlock> {
  const policy = notice?.policyVersion;
  const flip = (executor: Kysely<Database>) =>
    executor
      .updateTable("records")
      .set({ block: block ? 1 : 0, block_status_changed_at: at.getTime() })
      .where("domain", "=", domain)
      .where("block", "<>", block ? 1 : 0)
      // Only while the policy the status was decided with still holds (the counters only grow).
      .$if(policy !== undefined, (update) =>
        update.where(
          sql`(select coalesce(sum(version), 0) from changes where topic in (${sql.join(POLICY_TOPICS)}))`,
          "=",
          policy as number,
        ),
      )
      .returning(["block", "block_status_changed_at", "last_answered_at"])
      .executeTakeFirst();
  const updated = !notice
    ? await flip(db)
    : await db.transaction().execute(async (trx) => {
        const row = await flip(trx);
        const answered = row?.last_answered_at;
        if (answered != null && toMillis(answered) >= notice.watchedSince.getTime()) {
          await enqueueFlipEvents(trx, { domain, block, at, record: notice.record });
        }
        return row;
      });
  if (updated) return { ...blockStatus(updated), flipped: true };
  return { ...((await readBlock(db, domain)) ?? { block, changedAt: at }), flipped: false };
}

/**
 * One statement per batch; a domain marked since `olderThan` is left alone (at most one
 * write a day). It locks its rows in PostgreSQL's order of the list, not the saves' (a
 * save's transaction may hold some of them): run again when rolled back as a deadlock's victim.
 */
async function markAnswered(
  db: Kysely<Database>,
  domains: readonly string[],
  at: Date,
  olderThan: Date,
): Promise<void> {
  if (domains.length === 0) return;
  await retriedOnDeadlock(() =>
    db
      .updateTable("records")
      .set({ last_answered_at: at.getTime() })
      .where("domain", "in", domains)
      .where((eb) =>
        eb.or([eb("last_answered_at", "is", null), eb("last_answered_at", "<", olderThan.getTime())]),
      )
      .execute(),
  );
}

/** Walks the records in domain order (the primary key): each batch is one short read. */
async function watchedFacts(
  db: Kysely<Database>,
  since: Date,
  after: string | null,
  limit: number,
): Promise<WatchedFacts[]> {
  let query = db
    .selectFrom("records")
    .select(["domain", "facts", "block"])
    .where("last_answered_at", ">=", since.getTime());
  if (after !== null) query = query.where("domain", ">", after);
  const rows = await query.orderBy("domain").limit(limit).execute();
  return rows.map((row) => ({ domain: row.domain, facts: decodeFacts(row.facts), block: row.block === 1 }));
}

/** Rows one delete statement takes at most: each statement holds its lock only briefly. */
export const DELETE_BATCH = 1000;

/** Deletes up to `limit` records, those checked before `checkedBefore` when given; how many. */
export async function deleteRecordsBatch(
  db: Kysely<Database>,
  checkedBefore: Date | null,
  limit: number,
): Promise<number> {
  const older = checkedBefore === null ? sql`` : sql`where checked_at < ${checkedBefore.getTime()}`;
  const result = await sql`
    delete from records where domain in (select domain from records ${older} limit ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

async function purgeRecords(db: Kysely<Database>, domains: readonly string[]): Promise<number> {
  let purged = 0;
  for (let i = 0; i < domains.length; i += DELETE_BATCH) {
    const batch = domains.slice(i, i + DELETE_BATCH);
    const result = await db.deleteFrom("records").where("domain", "in", batch).executeTakeFirst();
    purged += Number(result.numDeletedRows);
  }
  return purged;
}

async function purgeAllRecords(db: Kysely<Database>): Promise<number> {
  let purged = 0;
  for (;;) {
    const deleted = await deleteRecordsBatch(db, null, DELETE_BATCH);
    purged += deleted;
    if (deleted < DELETE_BATCH) return purged;
  }
}

export function createRecordsRepository(db: Kysely<Database>): RecordsRepository {
  const save = batchSaves(writeSaves(db));
  return {
    getFacts: (domain) => getFacts(db, domain),
    saveFacts: (domain, facts, checkedAt, block) => saveFacts(db, save, domain, facts, checkedAt, block),
    noteBlock: (domain, block, at, notice) => noteBlock(db, domain, block, at, notice),
    markAnswered: (domains, at, olderThan) => markAnswered(db, domains, at, olderThan),
    watchedFacts: (since, after, limit) => watchedFacts(db, since, after, limit),
    purgeRecords: (domains) => purgeRecords(db, domains),
    purgeAllRecords: () => purgeAllRecords(db),
  };
}
