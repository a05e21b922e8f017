/**
 * `mailrisk infra list [--all] [--json]` (docs/verdicts.md, "Learned infrastructure"):
 * the CLI's adapter of src/operator/infrastructure.ts: what was learnt from traffic, by
 * default only what passed the thresholds. Exit codes: 0 done, 2 bad arguments.
 */
import { LEARNING_THRESHOLDS } from "../core/learned.js";
import { type InfrastructureJson, listInfrastructure } from "../operator/infrastructure.js";
import { parseArguments, usageError } from "./arguments.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage-text.js";
import { withStore, writeJson } from "./with-store.js";

const USAGE = usageOf("infra");

function infrastructureText(shown: InfrastructureJson[]): string {
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
  const { minDisposableDomains, minDisposableShare } = LEARNING_THRESHOLDS;
  return (
    `${formatTable([header, ...rows])}\n` +
    `\nThresholds: at least ${minDisposableDomains} distinct listed disposable domains, at least ${minDisposableShare * 100} % of the domains seen, no known-good or provider domain.\n`
  );
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
  const shown = await withStore(ctx, (store) => listInfrastructure(store, result.parsed.values.all === true));
  if (result.parsed.values.json) writeJson(ctx, shown);
  else ctx.stdout.write(infrastructureText(shown));
  return 0;
}
