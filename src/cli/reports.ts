/**
 * `mailrisk reports list [--status open|accepted|rejected] [--limit N] [--json]`,
 * `reports accept <id> [--note T]` and `reports reject <id> [--note T]` (docs/api.md §9,
 * §10): the operator's queue of reports of wrong answers, each beside today's answer
 * for its domain with its evidence, and the review. Accepting sets the matching allow or
 * deny override: running servers take it within a second. Exit codes: 0 done, 1 unknown
 * report or one reviewed already, 2 bad arguments.
 */
import { formatTimestamp } from "../core/record.js";
import { createChecker } from "../service/create-checker.js";
import {
  type Decision,
  MAX_REPORTS_SHOWN,
  type QueueEntry,
  queueEntryJson,
  REPORTS_SHOWN,
  ReportProblem,
  reportQueue,
  reviewReport,
} from "../service/reports.js";
import { REPORT_STATUSES, type ReportStatus } from "../store/types.js";
import { parseArguments, runSubcommand, usageError, wholeNumber } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { withStore } from "./with-store.js";

const USAGE = `usage: mailrisk reports list [--status open|accepted|rejected] [--limit N] [--json]
       mailrisk reports accept <id> [--note T]
       mailrisk reports reject <id> [--note T]`;

/** One report as a block of lines: what was reported, today's answer, and its evidence. */
function reportLines({ report, today }: QueueEntry): string {
  const { record } = today;
  const answer = `${record.block ? "block" : "allow"} (risk ${record.risk}, ${record.reason})`;
  const keys = `${report.reporters} key${report.reporters === 1 ? "" : "s"}`;
  const lines = [
    `${report.id}  ${report.domain}  expected ${report.expected}, today ${answer}  ${keys}  filed ${formatTimestamp(report.filedAt)}  by ${report.keyId}`,
  ];
  if (report.note) lines.push(`    note: ${report.note}`);
  if (report.reviewedAt) {
    lines.push(
      `    ${report.status} ${formatTimestamp(report.reviewedAt)}${report.reviewNote ? `: ${report.reviewNote}` : ""}`,
    );
  }
  for (const item of today.explain?.() ?? []) {
    lines.push(`    ${item.risk ? `+${item.risk}`.padStart(4) : "    "}  ${item.detail}`);
  }
  return lines.join("\n");
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({
    args,
    options: { status: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } },
    allowPositionals: false,
  });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const { values } = result.parsed;
  const status = (values.status ?? "open") as ReportStatus;
  if (!REPORT_STATUSES.includes(status))
    return usageError(ctx, "--status takes open, accepted or rejected", USAGE);
  const limit = values.limit === undefined ? REPORTS_SHOWN : wholeNumber(values.limit);
  if (limit === undefined || limit < 1 || limit > MAX_REPORTS_SHOWN) {
    return usageError(ctx, `--limit must be a whole number from 1 to ${MAX_REPORTS_SHOWN}`, USAGE);
  }
  const entries = await withStore(ctx, async (store) => {
    const checker = createChecker({ config: ctx.config, store });
    try {
      return await reportQueue({ reports: store.reports, checker }, status, limit);
    } finally {
      await checker.close();
    }
  });
  if (values.json) {
    ctx.stdout.write(`${JSON.stringify(entries.map(queueEntryJson))}\n`);
  } else if (entries.length === 0) {
    ctx.stdout.write(`No ${status} reports.\n`);
  } else {
    ctx.stdout.write(`${entries.map(reportLines).join("\n\n")}\n`);
  }
  return 0;
}

function review(decision: Decision): (args: string[], ctx: CliContext) => Promise<number> {
  return async (args, ctx) => {
    const result = parseArguments({ args, options: { note: { type: "string" } }, allowPositionals: true });
    if (!result.ok) return usageError(ctx, result.message, USAGE);
    const [id, ...extra] = result.parsed.positionals;
    if (id === undefined || extra.length > 0)
      return usageError(ctx, `reports ${decision} needs one report id`, USAGE);
    try {
      const done = await withStore(ctx, (store) =>
        reviewReport({ store, clock: () => new Date() }, id, decision, result.parsed.values.note ?? null),
      );
      const { report, closed, override } = done;
      const others = closed.filter((closedId) => closedId !== report.id);
      const also = others.length > 0 ? ` (and ${others.join(", ")}, of the same domain and answer)` : "";
      if (override) {
        ctx.stdout.write(
          `Accepted ${report.id}${also}: set override ${override.kind}:${override.value} ${override.action}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
        );
      } else {
        ctx.stdout.write(`Rejected ${report.id}${also}.\n`);
      }
      return 0;
    } catch (error) {
      if (!(error instanceof ReportProblem)) throw error;
      ctx.stderr.write(`mailrisk: ${error.message}\n`);
      return 1;
    }
  };
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand(
    "reports",
    { list, accept: review("accept"), reject: review("reject") },
    USAGE,
    args,
    ctx,
  );
}
