/**
 * `mailrisk records purge <domain>…` and `records purge --all` (docs/api.md §8, §9):
 * drops cached records, so the next check of each domain is a fresh look-up; running
 * servers forget what they remember of them within a second. Exit codes: 0
 * done, 2 bad arguments (an input that is not a domain included).
 */
import { parseDomain } from "../core/input.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { usageOf } from "./usage.js";
import { withStore } from "./with-store.js";

const USAGE = usageOf("records");

async function purge(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: { all: { type: "boolean" } }, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const all = result.parsed.values.all === true;
  const inputs = result.parsed.positionals;
  if (!all && inputs.length === 0) {
    return usageError(ctx, "records purge needs the domains to purge, or --all for every record", USAGE);
  }
  if (all && inputs.length > 0) {
    return usageError(
      ctx,
      `records purge takes domains or --all, not both (got --all and ${inputs.join(" ")})`,
      USAGE,
    );
  }
  const domains: string[] = [];
  for (const input of inputs) {
    const parsed = parseDomain(input, ctx.config);
    if (!parsed.ok) return usageError(ctx, `"${input}" is not a domain: ${parsed.problem.detail}`, USAGE);
    domains.push(parsed.input.domain);
  }
  const purged = await withStore(ctx, (store) =>
    all ? store.records.purgeAllRecords() : store.records.purgeRecords(domains),
  );
  ctx.stdout.write(`Purged ${purged} cached record${purged === 1 ? "" : "s"}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand("records", { purge }, USAGE, args, ctx);
}
