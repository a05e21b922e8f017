/**
 * `mailrisk reports …` (docs/api.md "Administration"): the CLI's adapter of src/operator/reports.ts.
 * Accepting sets the matching allow or deny override. Forms and exit codes in commands.ts.
 */
import { CLI_ACTOR } from "../operator/audit.js";
import { limitOf } from "../operator/refusal.js";
import { type QueueEntryJson, REPORT_STATUSES, reportQueue, reviewReport } from "../operator/reports.js";
import { createChecker } from "../service/checking/create-checker.js";
import type { ReportStatus } from "../store/index.js";
import { commandRunner, type Given, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { answer, answering, withStore } from "./with-store.js";

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

async function list(given: Given, ctx: CliContext): Promise<number> {
  const status = (given.text("status") ?? "open") as ReportStatus;
  if (!REPORT_STATUSES.includes(status))
    return usageError(ctx, "--status takes open, accepted or rejected", given.usage);
  const entries = await withStore(ctx, async (store) => {
    const checker = createChecker({
      config: ctx.config,
      store,
      onPolicyDiffers: (message) => ctx.stderr.write(`mailrisk: ${message}\n`),
    });
    try {
      return await reportQueue({ reports: store.reports, checker }, status, limitOf(given.text("limit")));
    } finally {
      await checker.close();
    }
  });
  return answer(ctx, given, entries, (found) =>
    found.length === 0 ? `No ${status} reports.\n` : `${found.map(reportLines).join("\n\n")}\n`,
  );
}

function review(decision: "accept" | "reject") {
  return answering(
    (store, given, ctx) =>
      reviewReport(
        { store, clock: ctx.clock },
        given.words[0] ?? "",
        decision,
        given.text("note") ?? null,
        CLI_ACTOR,
      ),
    (done) => {
      const others = done.closed.filter((closedId) => closedId !== done.id);
      const also = others.length > 0 ? ` (and ${others.join(", ")}, of the same domain and answer)` : "";
      return done.override
        ? `Accepted ${done.id}${also}: set override ${done.override.id} ${done.override.action}. ${TAKEN_BY_RUNNING_SERVERS}\n`
        : `Rejected ${done.id}${also}.\n`;
    },
  );
}

export const run = commandRunner("reports", { list, accept: review("accept"), reject: review("reject") });
