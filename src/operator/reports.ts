/**
 * The operator's queue of reports of wrong answers (docs/api.md "Reports of wrong
 * answers"), each beside today's answer for its domain with its evidence, and the
 * review: accepting sets the matching allow or deny override, rejecting closes the
 * report. Filing is the keys' side (src/service/checking/report-filing.ts).
 */
import pLimit from "p-limit";
import { type Static, Type } from "typebox";
import { EvidenceSchema } from "../core/evidence.js";
import { noteOptions, nullable } from "../core/schema-types.js";
import { applyOverride } from "../service/checking/apply-override.js";
import type { Checker, CheckResult } from "../service/checking/checker.js";
import {
  answerOf,
  MAX_NOTE_LENGTH,
  ReportProblem,
  ReportSchema,
  reportJson,
} from "../service/checking/report-filing.js";
import type { Override, Report, ReportForReview, ReportStatus, Store } from "../store/index.js";
import { type Actor, audited } from "./audit.js";
import { shownLimit } from "./refusal.js";

export { REPORT_STATUSES } from "../store/reports-types.js";

/** Reports the queue shows by default, and at most. */
export const REPORTS_SHOWN = 100;
export const MAX_REPORTS_SHOWN = 1000;

/** Domains of the queue checked at a time for today's evidence. */
const QUEUE_CHECKS = 8;

const ReviewerFields = {
  key_id: Type.String({ description: "The key that filed it." }),
  review_note: nullable<string>("string", { description: "The operator's note." }),
};

export const QueueEntrySchema = Type.Object(
  {
    ...ReportSchema.properties,
    ...ReviewerFields,
    reporters: Type.Integer({
      description:
        "How many distinct keys have a report of this domain with this status (the queue's order).",
    }),
    today: Type.Object(
      {
        answer: Type.Union([Type.Literal("allow"), Type.Literal("block")]),
        valid: Type.Boolean(),
        risk: Type.Integer(),
        text: Type.String(),
        reason: Type.String(),
        evidence: EvidenceSchema,
      },
      { description: "Today's answer for the domain, with its evidence." },
    ),
  },
  { description: "A report in the operator's queue." },
);
export type QueueEntryJson = Static<typeof QueueEntrySchema>;

export const ReviewSchema = Type.Object(
  {
    ...ReportSchema.properties,
    ...ReviewerFields,
    closed: Type.Array(Type.String(), {
      description: "Every report closed with it: the open reports of the domain expecting the same answer.",
    }),
    override: Type.Union(
      [
        Type.Object({
          id: Type.String({ description: "`domain:<domain>`, as the evidence names it." }),
          action: Type.String(),
          note: nullable<string>("string"),
        }),
        Type.Null(),
      ],
      { description: "The override accepting set; null for a rejection." },
    ),
  },
  { description: "A reviewed report." },
);
type ReviewJson = Static<typeof ReviewSchema>;

export const ReviewBody = Type.Object({
  note: Type.Optional(nullable<string>("string", noteOptions(MAX_NOTE_LENGTH))),
});

/** The override's note: the report's id, then the operator's note. */
function overrideNote(reportId: string, note: string | null): string {
  return note ? `report ${reportId}: ${note}` : `report ${reportId}`;
}

/**
 * Accepts or rejects an open report, and with it every open report of its domain
 * expecting the same answer. Accepting sets the allow or deny override of the domain,
 * with the report's id in its note; the override, the review and its audit entry commit
 * together or not at all.
 */
export function reviewReport(
  deps: { store: Pick<Store, "transaction">; clock: () => Date },
  id: string,
  decision: "accept" | "reject",
  note: string | null,
  actor: Actor,
): Promise<ReviewJson> {
  const review = async (store: Store): Promise<ReviewJson> => {
    const report = await store.reports.getReport(id);
    if (!report) throw new ReportProblem("unknown_report", `There is no report "${id}".`);
    if (report.status !== "open") {
      throw new ReportProblem("report_not_open", `The report ${id} was ${report.status} already.`);
    }
    const now = deps.clock();
    const operatorNote = note?.trim() || null;
    const override =
      decision === "accept"
        ? await applyOverride(store, {
            kind: "domain",
            value: report.domain,
            action: report.expected === "allow" ? "allow" : "deny",
            note: overrideNote(report.id, operatorNote),
            createdAt: now,
          })
        : null;
    const status = decision === "accept" ? "accepted" : "rejected";
    const closed = await store.reports.closeReports(id, status, operatorNote, now);
    if (closed.outcome === "unknown")
      throw new ReportProblem("unknown_report", `There is no report "${id}".`);
    if (closed.outcome === "not_open") {
      throw new ReportProblem("report_not_open", `The report ${id} was ${closed.report.status} already.`);
    }
    return reviewJson(closed.report, closed.closed, override);
  };
  return audited(deps.store, actor, review, (done) => ({
    action: `report.${decision}`,
    entity: { kind: "report", id },
    detail: { domain: done.domain, expected: done.expected, closed: done.closed, override: done.override },
  }));
}

/** How many reports are open, counted up to MAX_REPORTS_SHOWN. */
export async function openReportCount(reports: Pick<Store["reports"], "listReports">): Promise<number> {
  return (await reports.listReports("open", MAX_REPORTS_SHOWN)).length;
}

/**
 * The operator's queue: reports of a status (open: by how many distinct keys reported
 * the domain, most first), each with today's answer for its domain (each domain checked
 * once, through the record cache); `invalid_body` for a limit outside 1 to MAX_REPORTS_SHOWN.
 */
export async function reportQueue(
  deps: { reports: Pick<Store["reports"], "listReports">; checker: Pick<Checker, "check"> },
  status: ReportStatus,
  limit?: number,
): Promise<QueueEntryJson[]> {
  const reports = await deps.reports.listReports(status, shownLimit(limit, REPORTS_SHOWN, MAX_REPORTS_SHOWN));
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
  const entries: QueueEntryJson[] = [];
  for (const report of reports)
    entries.push(queueEntryJson(report, await (answers.get(report.domain) as Promise<CheckResult>)));
  return entries;
}

/** Today's answer for a domain, with its evidence. */
function answerJson(today: CheckResult) {
  const { record } = today;
  return {
    answer: answerOf(record),
    valid: record.valid,
    risk: record.risk,
    text: record.text,
    reason: record.reason,
    evidence: [...(today.explain?.() ?? [])],
  };
}

function queueEntryJson(report: ReportForReview, today: CheckResult): QueueEntryJson {
  return {
    ...reportJson(report),
    key_id: report.keyId,
    review_note: report.reviewNote,
    reporters: report.reporters,
    today: answerJson(today),
  };
}

function reviewJson(report: Report, closed: string[], override: Override | null): ReviewJson {
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
