/** `mailrisk stats` (docs/console.md "Traffic"): adapts src/operator/stats.ts. */
import { type Stats, trafficStats } from "../operator/stats.js";
import { commandRunner } from "./arguments.js";
import { formatCount, formatTable } from "./table.js";
import { answering } from "./with-store.js";

/** A list of the most seen, or a line saying there is none. */
function top(heading: string, header: string[], rows: string[][]): string {
  if (rows.length === 0) return `${heading}: none\n`;
  return `${heading}:\n${formatTable([header, ...rows])}\n`;
}

/** A row's counts: checks by surface, their total, and blocks. */
function counts({ api, bulk, jobs, pages, total }: Stats["totals"]["checks"], blocked: number): string[] {
  return [api, bulk, jobs, pages, total, blocked].map(formatCount);
}

function statsText(stats: Stats): string {
  const days = stats.days.map((day) => [
    day.day,
    ...counts(day.checks, day.blocked),
    Object.entries(day.blocks)
      .map(([reason, blocked]) => `${reason} ${formatCount(blocked)}`)
      .join(", "),
  ]);
  const totals = ["total", ...counts(stats.totals.checks, stats.totals.blocked), ""];
  return [
    `Traffic from ${stats.from} to ${stats.to} (UTC days):\n`,
    `${formatTable([["DAY", "API", "BULK", "JOBS", "PAGES", "CHECKS", "BLOCKED", "BLOCKS BY REASON"], ...days, totals])}\n`,
    top(
      "Disposable providers seen most",
      ["PROVIDER", "ANSWERS"],
      stats.top_disposable_providers.map((row) => [row.provider, formatCount(row.count)]),
    ),
    top(
      "Domains blocked most",
      ["DOMAIN", "BLOCKS"],
      stats.top_blocked_domains.map((row) => [row.domain, formatCount(row.count)]),
    ),
    top(
      "Accounts that used the most",
      ["ACCOUNT", "EMAIL", "UNITS"],
      stats.top_accounts.map((row) => [row.id, row.email, formatCount(row.used)]),
    ),
    top(
      "Keys that used the most",
      ["KEY", "PREFIX", "NAME", "ACCOUNT", "UNITS"],
      stats.top_keys.map((row) => [
        row.revoked ? `${row.id} (revoked)` : row.id,
        row.prefix,
        row.name ?? "",
        row.account_id ?? "",
        formatCount(row.used),
      ]),
    ),
  ].join("");
}

export const run = commandRunner(
  "stats",
  answering((store, _, ctx) => trafficStats(store, ctx.clock()), statsText),
);
