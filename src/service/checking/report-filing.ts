/**
 * Reports of wrong answers (docs/api.md "Reports of wrong answers", "Administration"; `mailrisk reports`): a key files one
 * when it expected another answer; the operator accepts it, which sets the matching
 * override (src/service/checking/apply-override.ts: the change signal then reaches every server within
 * a second), or rejects it. Today's answer, which a report must differ from and which
 * the operator's queue shows with its evidence, comes from the checker.
 */
import { type Static, Type } from "typebox";
import type { ParsedInput } from "../../core/input.js";
import { formatTimestamp } from "../../core/record.js";
import { nullable, Timestamp } from "../../core/schema-types.js";
import { DAY_MS } from "../../core/time.js";
import type { ExpectedAnswer, Report, ReportLimit, Store } from "../../store/index.js";
import type { ProblemCode } from "../shared/problem-codes.js";
import type { Checker } from "./checker.js";

/** At most 100 reports a key files in any 24 hours, counted in the database (so across instances). */
const MAX_REPORTS_A_DAY = 100;

/** The daily limit of a key: 100, or its plan's quota per period when that is smaller (null: unlimited). */
export function reportLimit(planQuota: number | null): ReportLimit {
  return { max: Math.min(MAX_REPORTS_A_DAY, planQuota ?? MAX_REPORTS_A_DAY), windowMs: DAY_MS };
}

/** Longest note a reporter or the operator may give. */
export const MAX_NOTE_LENGTH = 500;

/** A report that cannot be filed or reviewed, with its docs/api.md "Errors" code. */
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

export const ReportSchema = Type.Object(
  {
    id: Type.String({ description: "The report's id, e.g. `rpt_7fk2mq9xa3bc`." }),
    status: Type.Union([Type.Literal("open"), Type.Literal("accepted"), Type.Literal("rejected")], {
      description: "open until the operator accepts it (the answer changes) or rejects it.",
    }),
    domain: Type.String({
      description: "The reported domain (an address's domain; the address is not kept).",
    }),
    expected: Type.Union([Type.Literal("allow"), Type.Literal("block")], {
      description: "The answer the reporter expected.",
    }),
    note: nullable<string>("string", { description: "The reporter's note." }),
    filed_at: Timestamp,
    reviewed_at: nullable<string>("string", {
      format: "date-time",
      description: "When the operator decided.",
    }),
  },
  { description: "A report of a wrong answer, as the key that filed it reads it." },
);

/** A report as its key reads it (`POST /v2/reports`, `GET /v2/reports/{id}`). */
export function reportJson(report: Report): Static<typeof ReportSchema> {
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
