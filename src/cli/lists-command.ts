/**
 * `mailrisk lists …` (docs/data.md "Synced lists"): the CLI's adapter of src/operator/lists.ts. `update`
 * exits 1 when a source failed (the others are applied); forms and exit codes in commands.ts.
 */
import { CLI_ACTOR } from "../operator/audit.js";
import {
  listStatus,
  removeSource,
  rollback as rollbackLists,
  type SourceStateJson,
  updateLists,
} from "../operator/lists.js";
import { everySourceRead, type SourceReport } from "../service/lists/list-sync.js";
import { commandRunner, failed, type Given } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { answer, answering, withStore } from "./with-store.js";

/** Refused entries shown per source; `--json` has them all. */
const SHOWN_REFUSALS = 10;

function reportText(report: SourceReport): string {
  const lines = [
    `${report.source}: ${report.outcome}${report.reason ? ` (${report.reason})` : ""}; ` +
      `${report.entries} entries in force, ${report.added} added, ${report.removed} removed, ` +
      `${report.refused.length} refused`,
  ];
  for (const { entry, reason } of report.refused.slice(0, SHOWN_REFUSALS))
    lines.push(`  refused ${entry}: ${reason}`);
  if (report.refused.length > SHOWN_REFUSALS) {
    lines.push(`  … and ${report.refused.length - SHOWN_REFUSALS} more (--json lists them all)`);
  }
  return `${lines.join("\n")}\n`;
}

async function update(given: Given, ctx: CliContext): Promise<number> {
  const { config } = ctx;
  const report = await withStore(ctx, (store) =>
    updateLists(store, config, ctx.clock, `cli ${process.pid}`, CLI_ACTOR),
  );
  if (!report.ran) return failed(ctx, "another process is syncing the lists; try again in a minute");
  answer(ctx, given, report, ({ sources }) => {
    const said = sources.map(reportText).join("");
    if (sources.length === 0)
      return `LIST_SOURCES is off: no synced list is in force now. ${TAKEN_BY_RUNNING_SERVERS}\n`;
    return sources.some((s) => s.outcome === "accepted") ? `${said}${TAKEN_BY_RUNNING_SERVERS}\n` : said;
  });
  return everySourceRead(report) ? 0 : 1;
}

/** Which sources every process decides with (docs/data.md, "Who sets the policy"). */
function policyLine(states: SourceStateJson[]): string {
  if (states.every((s) => s.in_policy === null))
    return "No list policy yet: each process decides with its own LIST_SOURCES until a sync sets one.";
  const names = states
    .filter((s) => s.in_policy)
    .map((s) => s.source)
    .sort();
  return `In force everywhere (the list policy): ${names.length > 0 ? names.join(", ") : "no synced source"}.`;
}

function statusText(states: SourceStateJson[]): string {
  const header = ["SOURCE", "ENTRIES", "AGE", "LAST SUCCESS", "LAST ERROR", "URL"];
  const rows = states.map((s) => [
    s.source,
    String(s.in_force?.entries ?? "bundled"),
    s.age_seconds === null ? "-" : `${Math.floor(s.age_seconds / 3600)} h`,
    s.last_success ?? "never",
    s.last_error ?? "",
    s.url,
  ]);
  return `${formatTable([header, ...rows])}\n${policyLine(states)}\n`;
}

async function rollback({ words: [source] }: Given, ctx: CliContext): Promise<number> {
  const { rolled_back: rolled } = await withStore(ctx, (store) => rollbackLists(store, source, CLI_ACTOR));
  if (rolled.length === 0)
    return failed(ctx, `${source ?? "no source"} has no previous version to return to`);
  ctx.stdout.write(
    `Rolled back to the previous version: ${rolled.join(", ")}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  );
  return 0;
}

export const run = commandRunner("lists", {
  update,
  status: answering((store, _, ctx) => listStatus(store, ctx.config.listSources, ctx.clock()), statusText),
  rollback,
  remove: answering(
    (store, { words: [source = ""] }) => removeSource(store, source, CLI_ACTOR),
    ({ removed }) => `Removed the stored versions of ${removed}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  ),
});
