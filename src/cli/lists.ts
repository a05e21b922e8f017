/**
 * `mailrisk lists update`, `lists status [--json]`, `lists rollback [<source>]` and
 * `lists remove <source>` (docs/data.md "Synced lists"): syncs the upstream disposable
 * lists of LIST_SOURCES now, shows each source's state, returns to the previous accepted
 * (or the bundled) version, or deletes a source's stored versions. Running servers take
 * a change within a second. Exit codes: `update` 0 when every source was fetched and
 * judged, 1 when any failed (the others are applied) or another process was syncing;
 * `rollback` 1 when there was nothing to return to; `remove` 1 for an unknown source;
 * 2 bad arguments.
 */

import type { SourceReport } from "../service/list-sync.js";
import {
  bundledGate,
  everySourceRead,
  listStatus,
  removeList,
  rollbackLists,
  syncLists,
} from "../service/list-sync.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { withStore } from "./with-store.js";

const USAGE = `usage: mailrisk lists update [--json]
       mailrisk lists status [--json]
       mailrisk lists rollback [<source>]
       mailrisk lists remove <source>`;

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

async function update(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: false });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const { config } = ctx;
  if (config.listSources.length === 0)
    return usageError(ctx, "LIST_SOURCES is off: there is nothing to sync", USAGE);
  const report = await withStore(ctx, (store) =>
    syncLists({
      store,
      sources: config.listSources,
      maxEntries: config.listMaxEntries,
      gate: bundledGate(),
      clock: () => new Date(),
      holder: `cli ${process.pid}`,
    }),
  );
  if (!report.ran) {
    ctx.stderr.write("mailrisk: another process is syncing the lists; try again in a minute\n");
    return 1;
  }
  if (result.parsed.values.json) ctx.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    for (const source of report.sources) ctx.stdout.write(reportText(source));
    if (report.sources.some((s) => s.outcome === "accepted"))
      ctx.stdout.write(`${TAKEN_BY_RUNNING_SERVERS}\n`);
  }
  return everySourceRead(report) ? 0 : 1;
}

async function status(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: false });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const states = await withStore(ctx, (store) => listStatus(store, ctx.config.listSources, new Date()));
  if (result.parsed.values.json) {
    ctx.stdout.write(`${JSON.stringify(states)}\n`);
    return 0;
  }
  const header = ["SOURCE", "ENTRIES", "AGE", "LAST SUCCESS", "LAST ERROR", "URL"];
  const rows = states.map((s) => [
    s.source,
    String(s.in_force?.entries ?? "bundled"),
    s.age_seconds === null ? "-" : `${Math.floor(s.age_seconds / 3600)} h`,
    s.last_success ?? "never",
    s.last_error ?? "",
    s.url,
  ]);
  ctx.stdout.write(`${formatTable([header, ...rows])}\n`);
  return 0;
}

async function rollback(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const [source, ...extra] = result.parsed.positionals;
  if (extra.length > 0) return usageError(ctx, "lists rollback takes at most one source", USAGE);
  const rolled = await withStore(ctx, (store) => rollbackLists(store, source));
  if (rolled.length === 0) {
    ctx.stderr.write(`mailrisk: ${source ?? "no source"} has no previous version to return to\n`);
    return 1;
  }
  ctx.stdout.write(
    `Rolled back to the previous version: ${rolled.join(", ")}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  );
  return 0;
}

async function remove(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const [source, ...extra] = result.parsed.positionals;
  if (source === undefined || extra.length > 0)
    return usageError(ctx, "lists remove takes one source", USAGE);
  if (!(await withStore(ctx, (store) => removeList(store, source)))) {
    ctx.stderr.write(`mailrisk: unknown source ${source}\n`);
    return 1;
  }
  ctx.stdout.write(`Removed the stored versions of ${source}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand("lists", { update, status, rollback, remove }, USAGE, args, ctx);
}
