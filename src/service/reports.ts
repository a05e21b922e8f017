/**
 * Reports of wrong answers (docs/api.md §3.5, §10; `mailrisk reports`): a key files one
 * when it expected another answer; the operator accepts it, which sets the matching
 * override (src/service/overrides.ts: the change signal then reaches every server within
 * a second), or rejects it. Today's answer, which a report must differ from and which
 * the operator's queue shows with its evidence, comes from the checker.
 */
import pLimit from "p-limit";
import type { EvidenceItem } from "../core/evidence.js";
import type { ParsedInput } from "../core/input.js";
import { formatTimestamp } from "../core/record.js";
import { DAY_MS } from "../core/time.js";
import type {
  ExpectedAnswer,
  Override,
  Report,
  ReportForReview,
  ReportLimit,
  ReportStatus,
  Store,
} from "../store/types.js";
import type { Checker, CheckResult } from "./checker.js";
import { applyOverride } from "./overrides.js";
import type { ProblemCode } from "./problems.js";

/** At most 100 reports a key files in any 24 hours, counted in the database (so across instances). */
const MAX_REPORTS_A_DAY = 100;

/** The daily limit of a key: 100, or its plan's quota per period when that is smaller (null: unlimited). */
export function reportLimit(planQuota: number | null): ReportLimit {
  return { max: Math.min(MAX_REPORTS_A_DAY, planQuota ?? MAX_REPORTS_A_DAY), windowMs: DAY_MS };
}

/** Reports the operator's queue shows by default, and at most. */
export const REPORTS_SHOWN = 100;
export const MAX_REPORTS_SHOWN = 1000;

/** Longest note a reporter or the operator may give. */
export const MAX_NOTE_LENGTH = 500;

/** Domains of the queue checked at a time for today's evidence. */
const QUEUE_CHECKS = 8;

/** A report that cannot be filed or reviewed, with its docs/api.md §5 code. */
export class ReportProblem extends Error {
  override name = "ReportProblem";

  constructor(
    readonly code: Extract<
      ProblemCode,
      "report_matches_answer" | "unknown_report" | "report_not_open" | "too_many_reports"
    >,
    message: string,
    /** For `too_many_reports`: seconds until the key may file again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** The answer a record gives: allow or block. */
export function answerOf(record: { block: boolean }): ExpectedAnswer {
  return record.block ? "block" : "allow";
}

export interface FilingDeps {
  reports: Pick<Store["reports"], "fileReport">;
  checker: Pick<Checker, "check">;
  clock: () => Date;
}

/**
 * Files a key's report of the input's domain: `report_matches_answer` when today's answer
 * for the input is the expected one already, which counts towards the limit too (reports
 * count nothing against the quota, and refusals must not tell answers for free); else the
 * key's open report of the domain is returned instead of a second one; `too_many_reports`
 * past the daily limit of the key's plan (`reportLimit`).
 */
export async function fileReport(
  deps: FilingDeps,
  key: { id: string; planQuota: number | null },
  input: ParsedInput,
  expected: ExpectedAnswer,
  note: string | null,
): Promise<{ report: Report; duplicate: boolean }> {
  const today = await deps.checker.check(input);
  const refused = answerOf(today.record) === expected;
  const limit = reportLimit(key.planQuota);
  const filed = await deps.reports.fileReport(
    {
      keyId: key.id,
      domain: input.domain,
      expected,
      note: note?.trim() || null,
      filedAt: deps.clock(),
      refused,
    },
    limit,
  );
  if (filed.outcome === "refused") {
    throw new ReportProblem(
      "report_matches_answer",
      `The answer for ${input.localPart === null ? input.domain : "this address"} is ${expected} already; report an answer you expected otherwise.`,
    );
  }
  if (filed.outcome === "limited") {
    const seconds = Math.max(1, Math.ceil((filed.retryAt.getTime() - deps.clock().getTime()) / 1000));
    throw new ReportProblem(
      "too_many_reports",
      `This key may file ${limit.max} reports in any 24 hours; the next one fits at ${formatTimestamp(filed.retryAt)}.`,
      seconds,
    );
  }
  return { report: filed.report, duplicate: filed.outcome === "duplicate" };
}

/** A report as the key that filed it may read it (`GET /v2/reports/{id}`): unknown, or another key's, is `unknown_report`. */
export async function reportOfKey(
  reports: Pick<Store["reports"], "getReport">,
  keyId: string,
  id: string,
): Promise<Report> {
  const report = await reports.getReport(id);
  // Another key's report is answered like an unknown one: ids are not to be probed.
  if (!report || report.keyId !== keyId)
    throw new ReportProblem("unknown_report", `There is no report "${id}".`);
  return report;
}

export type Decision = "accept" | "reject";

/** What a review did: the report, every report it closed (its own id included), the override it set. */
export interface Review {
  report: Report;
  closed: string[];
  override: Override | null;
}

/** The override's note: the report's id, then the operator's note. */
export function overrideNote(reportId: string, note: string | null): string {
  return note ? `report ${reportId}: ${note}` : `report ${reportId}`;
}

/**
 * Accepts or rejects an open report, and with it every open report of its domain
 * expecting the same answer. Accepting first sets the allow or deny override of the
 * domain, with the report's id in its note, so that a failure in between leaves the
 * report open to be accepted again (setting an override twice is harmless).
 */
export async function reviewReport(
  deps: { store: Pick<Store, "reports" | "overrides">; clock: () => Date },
  id: string,
  decision: Decision,
  note: string | null,
): Promise<Review> {
  const { reports } = deps.store;
  const report = await reports.getReport(id);
  if (!report) throw new ReportProblem("unknown_report", `There is no report "${id}".`);
  if (report.status !== "open") {
    throw new ReportProblem("report_not_open", `The report ${id} was ${report.status} already.`);
  }
  const now = deps.clock();
  const operatorNote = note?.trim() || null;
  const override =
    decision === "accept"
      ? await applyOverride(deps.store, {
          kind: "domain",
          value: report.domain,
          action: report.expected === "allow" ? "allow" : "deny",
          note: overrideNote(report.id, operatorNote),
          createdAt: now,
        })
      : null;
  const closed = await reports.closeReports(
    id,
    decision === "accept" ? "accepted" : "rejected",
    operatorNote,
    now,
  );
  if (closed.outcome === "unknown") throw new ReportProblem("unknown_report", `There is no report "${id}".`);
  if (closed.outcome === "not_open") {
    throw new ReportProblem("report_not_open", `The report ${id} was ${closed.report.status} already.`);
  }
  return { report: closed.report, closed: closed.closed, override };
}

/** A report in the operator's queue, beside today's answer for its domain. */
export interface QueueEntry {
  report: ReportForReview;
  today: CheckResult;
}

/**
 * The operator's queue: reports of a status (open: by how many distinct keys reported
 * the domain, most first), each with today's answer for its domain (each domain checked
 * once, through the record cache).
 */
export async function reportQueue(
  deps: { reports: Pick<Store["reports"], "listReports">; checker: Pick<Checker, "check"> },
  status: ReportStatus,
  limit: number = REPORTS_SHOWN,
): Promise<QueueEntry[]> {
  const reports = await deps.reports.listReports(status, limit);
  const limitChecks = pLimit(QUEUE_CHECKS);
  const answers = new Map<string, Promise<CheckResult>>();
  for (const { domain } of reports) {
    if (!answers.has(domain)) {
      answers.set(
        domain,
        limitChecks(() => deps.checker.check({ kind: "domain", domain, localPart: null })),
      );
    }
  }
  const entries: QueueEntry[] = [];
  for (const report of reports)
    entries.push({ report, today: await (answers.get(report.domain) as Promise<CheckResult>) });
  return entries;
}

/** A report as its key reads it (`POST /v2/reports`, `GET /v2/reports/{id}`). */
export function reportJson(report: Report) {
  return {
    id: report.id,
    status: report.status,
    domain: report.domain,
    expected: report.expected,
    note: report.note,
    filed_at: formatTimestamp(report.filedAt),
    reviewed_at: report.reviewedAt ? formatTimestamp(report.reviewedAt) : null,
  };
}

/** Today's answer for a domain, with its evidence. */
export function answerJson(today: CheckResult) {
  const { record } = today;
  return {
    answer: answerOf(record),
    valid: record.valid,
    risk: record.risk,
    text: record.text,
    reason: record.reason,
    evidence: (today.explain?.() ?? []) as readonly EvidenceItem[],
  };
}

/** A report as the operator reads it (`GET /admin/reports`, `mailrisk reports list --json`). */
export function queueEntryJson({ report, today }: QueueEntry) {
  return {
    ...reportJson(report),
    key_id: report.keyId,
    review_note: report.reviewNote,
    reporters: report.reporters,
    today: answerJson(today),
  };
}

/** What a review did (`POST /admin/reports/{id}/accept|reject`, `mailrisk reports accept|reject`). */
export function reviewJson({ report, closed, override }: Review) {
  return {
    ...reportJson(report),
    key_id: report.keyId,
    review_note: report.reviewNote,
    closed,
    override: override && {
      id: `${override.kind}:${override.value}`,
      action: override.action,
      note: override.note,
    },
  };
}
