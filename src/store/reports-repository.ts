/**
 * Reports of wrong answers (docs/api.md "Reports of wrong answers", "Administration"): filed by keys, reviewed by the
 * operator; a refused one (it expected today's answer) is kept only to count towards
 * the daily limit. Filing is one transaction that first touches the key's own row, which
 * serialises one key's filings on every instance (a row lock in PostgreSQL, the write
 * lock in SQLite), so the daily limit and "one open report per key and domain" hold
 * exactly across instances; a unique index on open reports keeps the second promise
 * whatever else happens.
 */
import { type Kysely, type Selectable, sql } from "kysely";
import { inTransaction } from "./changes.js";
import { toDate, toMillis } from "./columns.js";
import type {
  ClosedReports,
  ExpectedAnswer,
  FiledReport,
  Report,
  ReportForReview,
  ReportLimit,
  ReportStatus,
  ReportsRepository,
} from "./reports-types.js";
import type { Database, ReportsTable } from "./schema.js";
import { newReportId } from "./secrets.js";

type ReportRow = Selectable<ReportsTable>;

/** The status of a refused report (it expected today's answer): counted towards the limit, never shown. */
const REFUSED = "refused";

function toReport(row: ReportRow): Report {
  return {
    id: row.id,
    keyId: row.key_id,
    domain: row.domain,
    expected: row.expected as ExpectedAnswer,
    note: row.note,
    status: row.status as ReportStatus,
    filedAt: toDate(row.filed_at),
    reviewedAt: row.reviewed_at === null ? null : toDate(row.reviewed_at),
    reviewNote: row.review_note,
  };
}

async function fileReport(
  db: Kysely<Database>,
  {
    refused = false,
    ...report
  }: Omit<Report, "id" | "status" | "reviewedAt" | "reviewNote"> & {
    refused?: boolean;
  },
  limit: ReportLimit,
): Promise<FiledReport> {
  return db.transaction().execute(async (trx) => {
    // Takes the key's row first: every filing of this key waits here for the one before.
    await trx.updateTable("api_keys").set({ id: report.keyId }).where("id", "=", report.keyId).execute();
    const open = await trx
      .selectFrom("reports")
      .selectAll()
      .where("key_id", "=", report.keyId)
      .where("domain", "=", report.domain)
      .where("status", "=", "open")
      .executeTakeFirst();
    // A refusal tells today's answer, so it is counted whatever is open.
    if (open && !refused) return { outcome: "duplicate", report: toReport(open) };
    const since = report.filedAt.getTime() - limit.windowMs;
    // A key's refusals serve only its limit: those out of the window go (at most `max` stay per key).
    await trx
      .deleteFrom("reports")
      .where("key_id", "=", report.keyId)
      .where("status", "=", REFUSED)
      .where("filed_at", "<=", since)
      .execute();
    const recent = await trx
      .selectFrom("reports")
      .select("filed_at")
      .where("key_id", "=", report.keyId)
      .where("filed_at", ">", since)
      .orderBy("filed_at", "desc")
      .limit(limit.max)
      .execute();
    const oldest = recent[limit.max - 1];
    if (oldest !== undefined) {
      // The window holds `max` reports: one more fits once the oldest of the newest `max` leaves it.
      return { outcome: "limited", retryAt: new Date(toMillis(oldest.filed_at) + limit.windowMs) };
    }
    const filed: Report = {
      id: newReportId(),
      ...report,
      status: "open",
      reviewedAt: null,
      reviewNote: null,
    };
    await trx
      .insertInto("reports")
      .values({
        id: filed.id,
        key_id: filed.keyId,
        domain: filed.domain,
        expected: filed.expected,
        note: filed.note,
        status: refused ? REFUSED : filed.status,
        filed_at: filed.filedAt.getTime(),
        reviewed_at: null,
        review_note: null,
      })
      .execute();
    return refused ? { outcome: "refused" } : { outcome: "filed", report: filed };
  });
}

async function getReport(db: Kysely<Database>, id: string): Promise<Report | undefined> {
  const row = await db
    .selectFrom("reports")
    .selectAll()
    .where("id", "=", id)
    .where("status", "!=", REFUSED)
    .executeTakeFirst();
  return row && toReport(row);
}

/** The reports an account's keys filed, newest first, at most `limit`. */
async function accountReports(db: Kysely<Database>, accountId: string, limit: number): Promise<Report[]> {
  const rows = await db
    .selectFrom("reports")
    .selectAll()
    .where("key_id", "in", db.selectFrom("api_keys").select("id").where("account_id", "=", accountId))
    .where("status", "!=", REFUSED)
    .orderBy("filed_at", "desc")
    .limit(limit)
    .execute();
  return rows.map(toReport);
}

async function listReports(
  db: Kysely<Database>,
  status: ReportStatus,
  limit: number,
): Promise<ReportForReview[]> {
  const reporters = sql<number | string>`(
    select count(distinct o.key_id) from reports o where o.domain = reports.domain and o.status = reports.status
  )`;
  let query = db
    .selectFrom("reports")
    .selectAll()
    .select(reporters.as("reporters"))
    .where("status", "=", status);
  query =
    status === "open"
      ? query.orderBy("reporters", "desc").orderBy("filed_at", "asc").orderBy("id")
      : query.orderBy("reviewed_at", "desc").orderBy("id");
  const rows = await query.limit(limit).execute();
  return rows.map((row) => ({ ...toReport(row), reporters: toMillis(row.reporters) }));
}

async function closeReports(
  db: Kysely<Database>,
  id: string,
  status: Exclude<ReportStatus, "open">,
  note: string | null,
  at: Date,
): Promise<ClosedReports> {
  return inTransaction(db, async (trx) => {
    const row = await trx
      .selectFrom("reports")
      .selectAll()
      .where("id", "=", id)
      .where("status", "!=", REFUSED)
      .executeTakeFirst();
    if (!row) return { outcome: "unknown" };
    const report = toReport(row);
    if (report.status !== "open") return { outcome: "not_open", report };
    const closed = await trx
      .updateTable("reports")
      .set({ status, reviewed_at: at.getTime(), review_note: note })
      .where("domain", "=", report.domain)
      .where("expected", "=", report.expected)
      .where("status", "=", "open")
      .returning("id")
      .execute();
    return {
      outcome: "closed",
      report: { ...report, status, reviewedAt: at, reviewNote: note },
      closed: closed.map((r) => r.id).sort(),
    };
  });
}

export function createReportsRepository(db: Kysely<Database>): ReportsRepository {
  return {
    fileReport: (report, limit) => fileReport(db, report, limit),
    getReport: (id) => getReport(db, id),
    listReports: (status, limit) => listReports(db, status, limit),
    accountReports: (accountId, limit) => accountReports(db, accountId, limit),
    closeReports: (id, status, note, at) => closeReports(db, id, status, note, at),
  };
}
