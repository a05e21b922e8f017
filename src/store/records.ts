/**
 * Domain records (docs/api.md §4, §8). The record is stored as JSON; `block_status_changed_at`
 * lives in its own column, kept by the upsert while `block` stays the same, and is the
 * value every read puts into the record.
 */
import { type Kysely, type Selectable, sql } from "kysely";
import { type CheckRecord, formatTimestamp } from "../core/record.js";
import type { VerdictStatus } from "../core/verdict.js";
import { type Database, type RecordsTable, toDate } from "./schema.js";
import type { RecordsRepository, RecordVerdict, StoredRecord } from "./types.js";

function withChangedAt(record: CheckRecord, changedAt: number | string): CheckRecord {
  return { ...record, block_status_changed_at: formatTimestamp(toDate(changedAt)) };
}

/** Plain SQL (valid in both dialects): it runs on every API request; see quota.ts. */
async function getRecord(db: Kysely<Database>, domain: string): Promise<StoredRecord | undefined> {
  const { rows } = await sql<
    Pick<
      Selectable<RecordsTable>,
      "record" | "checked_at" | "block_status_changed_at" | "status" | "heaviest"
    >
  >`
    select record, checked_at, block_status_changed_at, status, heaviest from records where domain = ${domain}`.execute(
    db,
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    record: withChangedAt(JSON.parse(row.record) as CheckRecord, row.block_status_changed_at),
    verdict: row.status === null ? null : { status: row.status as VerdictStatus, heaviest: row.heaviest },
    checkedAt: toDate(row.checked_at),
  };
}

/**
 * One atomic upsert. A save older than the stored record (another instance finished a
 * later check first) changes nothing, and the stored record is returned instead.
 */
async function saveRecord(
  db: Kysely<Database>,
  record: CheckRecord,
  verdict: RecordVerdict,
  checkedAt: Date,
): Promise<CheckRecord> {
  const saved = await db
    .insertInto("records")
    .values({
      domain: record.domain,
      record: JSON.stringify(record),
      block: record.block ? 1 : 0,
      checked_at: checkedAt.getTime(),
      block_status_changed_at: checkedAt.getTime(),
      status: verdict.status,
      heaviest: verdict.heaviest,
    })
    .onConflict((oc) =>
      oc
        .column("domain")
        .doUpdateSet((eb) => ({
          record: eb.ref("excluded.record"),
          block: eb.ref("excluded.block"),
          checked_at: eb.ref("excluded.checked_at"),
          status: eb.ref("excluded.status"),
          heaviest: eb.ref("excluded.heaviest"),
          block_status_changed_at: eb
            .case()
            .when("records.block", "=", eb.ref("excluded.block"))
            .then(eb.ref("records.block_status_changed_at"))
            .else(eb.ref("excluded.block_status_changed_at"))
            .end(),
        }))
        .where("records.checked_at", "<=", (eb) => eb.ref("excluded.checked_at")),
    )
    .returning("block_status_changed_at")
    .executeTakeFirst();
  if (saved) return withChangedAt(record, saved.block_status_changed_at);
  const newer = await getRecord(db, record.domain);
  return newer?.record ?? withChangedAt(record, checkedAt.getTime());
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
  return {
    getRecord: (domain) => getRecord(db, domain),
    saveRecord: (record, verdict, checkedAt) => saveRecord(db, record, verdict, checkedAt),
    purgeRecords: (domains) => purgeRecords(db, domains),
    purgeAllRecords: () => purgeAllRecords(db),
  };
}
