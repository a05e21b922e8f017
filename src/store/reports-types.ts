/**
 * Reports of wrong answers: the repository's contract and rows, implemented in
 * src/store/reports-repository.ts.
 */

/** The answer a reporter expected (docs/api.md "Reports of wrong answers"). */
export type ExpectedAnswer = "allow" | "block";

/** Where a report stands: open until the operator accepts or rejects it. */
export type ReportStatus = "open" | "accepted" | "rejected";

export const REPORT_STATUSES: readonly ReportStatus[] = ["open", "accepted", "rejected"];

/** A report of a wrong answer, filed by a key (docs/api.md "Reports of wrong answers"). Only the domain is kept, never an address. */
export interface Report {
  id: string;
  keyId: string;
  domain: string;
  expected: ExpectedAnswer;
  note: string | null;
  status: ReportStatus;
  filedAt: Date;
  reviewedAt: Date | null;
  reviewNote: string | null;
}

/** A report in the operator's queue, with how many distinct keys reported its domain with the same status. */
export interface ReportForReview extends Report {
  reporters: number;
}

/** How many reports a key may file within a window. */
export interface ReportLimit {
  max: number;
  windowMs: number;
}

export type FiledReport =
  /** Filed now, or the key's open report of the domain, returned instead of a second one. */
  | { outcome: "filed" | "duplicate"; report: Report }
  /** Refused (it expected today's answer): kept only to count towards the limit. */
  | { outcome: "refused" }
  /** The key filed `max` reports within the window: none filed; another may be filed at `retryAt`. */
  | { outcome: "limited"; retryAt: Date };

export type ClosedReports =
  /** The report and every other open report of its domain expecting the same answer, closed. */
  | { outcome: "closed"; report: Report; closed: string[] }
  | { outcome: "not_open"; report: Report }
  | { outcome: "unknown" };

/** Reports of wrong answers (src/store/reports-repository.ts): filed by keys, reviewed by the operator. */
export interface ReportsRepository {
  /**
   * Files a report, exactly across instances: a key's open report of the same domain is
   * returned instead, and a key with `limit.max` reports or refusals within the window
   * before `report.filedAt` files nothing. `refused`: the report expected today's answer;
   * it is kept as a refusal, never shown, which counts towards the limit (so refusals
   * cannot tell a key answers for free).
   */
  fileReport(
    report: Omit<Report, "id" | "status" | "reviewedAt" | "reviewNote"> & { refused?: boolean },
    limit: ReportLimit,
  ): Promise<FiledReport>;
  getReport(id: string): Promise<Report | undefined>;
  /** Reports with a status, at most `limit`: open ones by reporters (most first), then oldest first; others newest review first. */
  listReports(status: ReportStatus, limit: number): Promise<ReportForReview[]>;
  /** The reports an account's keys filed (docs/accounts.md), newest first, at most `limit`. */
  accountReports(accountId: string, limit: number): Promise<Report[]>;
  /** Accepts or rejects an open report, with every other open report of its domain expecting the same answer. */
  closeReports(
    id: string,
    status: Exclude<ReportStatus, "open">,
    note: string | null,
    at: Date,
  ): Promise<ClosedReports>;
}
