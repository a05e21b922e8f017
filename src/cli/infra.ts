/**
 * `mailrisk infra list [--all] [--json]` (docs/verdicts.md, "Learned infrastructure"):
 * what was learnt from traffic and from which evidence — each piece of infrastructure
 * with at least one (`--all`) or enough (default) listed disposable domains seen on it,
 * its counts of distinct domains by listed status, the service it names, examples, and
 * its state: `disposable`, `never disposable (operator)`, `has good domains`, or `below
 * thresholds`. Exit codes: 0 done, 2 bad arguments.
 */
import { isLearnedDisposable, LEARNING_THRESHOLDS } from "../core/learned.js";
import type { InfrastructureSummary } from "../store/types.js";
import { parseArguments, usageError } from "./arguments.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage.js";
import { withStore } from "./with-store.js";

const USAGE = usageOf("infra");

function state(summary: InfrastructureSummary, never: ReadonlySet<string>): string {
  if (never.has(`${summary.kind} ${summary.value}`)) return "never disposable (operator)";
  if (summary.good > 0) return "has good domains";
  return isLearnedDisposable(summary) ? "disposable" : "below thresholds";
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const [command, ...rest] = args;
  if (command !== "list") {
    const got = command === undefined ? "" : ` (got "${command}")`;
    return usageError(ctx, `infra needs the command list${got}`, USAGE);
  }
  const result = parseArguments({
    args: rest,
    options: { all: { type: "boolean" }, json: { type: "boolean" } },
    allowPositionals: false,
  });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const all = result.parsed.values.all === true;
  const [summaries, overrides] = await withStore(ctx, (store) =>
    Promise.all([
      store.infrastructure.listInfrastructure(all ? 1 : LEARNING_THRESHOLDS.minDisposableDomains),
      store.overrides.listOverrides(),
    ]),
  );
  const never = new Set(overrides.filter((o) => o.kind !== "domain").map((o) => `${o.kind} ${o.value}`));
  const shown = summaries
    .map((summary) => ({ ...summary, state: state(summary, never) }))
    .filter((summary) => all || summary.state === "disposable");
  if (result.parsed.values.json) {
    ctx.stdout.write(`${JSON.stringify(shown)}\n`);
    return 0;
  }
  const header = ["KIND", "VALUE", "STATE", "DISPOSABLE", "GOOD", "UNKNOWN", "SERVICE", "EXAMPLES"];
  const rows = shown.map((s) => [
    s.kind,
    s.value,
    s.state,
    String(s.disposable),
    String(s.good),
    String(s.unknown),
    s.service ?? "",
    s.examples.join(", "),
  ]);
  ctx.stdout.write(`${formatTable([header, ...rows])}\n`);
  const { minDisposableDomains, minDisposableShare } = LEARNING_THRESHOLDS;
  ctx.stdout.write(
    `\nThresholds: at least ${minDisposableDomains} distinct listed disposable domains, at least ${minDisposableShare * 100} % of the domains seen, no known-good or provider domain.\n`,
  );
  return 0;
}
