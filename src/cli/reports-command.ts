/**
 * `mailrisk reports list [--status open|accepted|rejected] [--limit N] [--json]`,
 * `reports accept <id> [--note T]` and `reports reject <id> [--note T]` (docs/api.md "CLI",
 * "Administration"): the CLI's adapter of src/operator/reports.ts. Accepting sets the matching allow
 * or deny override: running servers take it within a second. Exit codes: 0 done, 1
 * unknown report or one reviewed already, 2 bad arguments.
 */
import { CLI_ACTOR } from "../operator/audit.js";
import {
  MAX_REPORTS_SHOWN,
  type QueueEntryJson,
  REPORT_STATUSES,
  REPORTS_SHOWN,
  reportQueue,
  reviewReport,
} from "../operator/reports.js";
import { createChecker } from "../service/checking/create-checker.js";
import type { ReportStatus } from "../store/index.js";
import { parseArguments, runSubcommand, usageError, wholeNumber } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { usageOf } from "./usage-text.js";
import { withStore, writeJson } from "./with-store.js";

const USAGE = usageOf("reports");

/** One report as a block of lines: what was reported, today's answer, and its evidence. */
function reportLines(entry: QueueEntryJson): string {
  const { today } = entry;
  const answer = `${today.answer} (risk ${today.risk}, ${today.reason})`;
  const keys = `${entry.reporters} key${entry.reporters === 1 ? "" : "s"}`;
  const lines = [
    `${entry.id}  ${entry.domain}  expected ${entry.expected}, today ${answer}  ${keys}  filed ${entry.filed_at}  by ${entry.key_id}`,
  ];
  if (entry.note) lines.push(`    note: ${entry.note}`);
  if (entry.reviewed_at)
    lines.push(
      `    ${entry.status} ${entry.reviewed_at}${entry.review_note ? `: ${entry.review_note}` : ""}`,
    );
  for (const item of today.evidence) {
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
    const checker = createChecker({
      config: ctx.config,
      store,
      onPolicyDiffers: (message) => ctx.stderr.write(`mailrisk: ${message}\n`),
    });
    try {
      return await reportQueue({ reports: store.reports, checker }, status, limit);
    } finally {
      await checker.close();
    }
  });
  if (values.json) writeJson(ctx, entries);
  else if (entries.length === 0) ctx.stdout.write(`No ${status} reports.\n`);
  else ctx.stdout.write(`${entries.map(reportLines).join("\n\n")}\n`);
  return 0;
}

function review(decision: "accept" | "reject"): (args: string[], ctx: CliContext) => Promise<number> {
  return async (args, ctx) => {
    const result = parseArguments({ args, options: { note: { type: "string" } }, allowPositionals: true });
    if (!result.ok) return usageError(ctx, result.message, USAGE);
    const [id, ...extra] = result.parsed.positionals;
    if (id === undefined || extra.length > 0)
      return usageError(ctx, `reports ${decision} needs one report id`, USAGE);
    const note = result.parsed.values.note ?? null;
    const done = await withStore(ctx, (store) =>
      reviewReport({ store, clock: ctx.clock }, id, decision, note, CLI_ACTOR),
    );
    const others = done.closed.filter((closedId) => closedId !== done.id);
    const also = others.length > 0 ? ` (and ${others.join(", ")}, of the same domain and answer)` : "";
    ctx.stdout.write(
      done.override
        ? `Accepted ${done.id}${also}: set override ${done.override.id} ${done.override.action}. ${TAKEN_BY_RUNNING_SERVERS}\n`
        : `Rejected ${done.id}${also}.\n`,
    );
    return 0;
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
