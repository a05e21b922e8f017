/**
 * `mailrisk records purge <domain>…|--all` (docs/api.md "CLI"): adapts
 * src/operator/records.ts. Exit codes: 0 done, 2 bad arguments (a non-domain included).
 */
import { CLI_ACTOR } from "../operator/audit.js";
import { purgeRecords } from "../operator/records.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { usageOf } from "./usage-text.js";
import { withStore } from "./with-store.js";

const USAGE = usageOf("records");

async function purge(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: { all: { type: "boolean" } }, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const all = result.parsed.values.all === true;
  const domains = result.parsed.positionals;
  if (!all && domains.length === 0)
    return usageError(ctx, "records purge needs the domains to purge, or --all for every record", USAGE);
  if (all && domains.length > 0) {
    const got = `got --all and ${domains.join(" ")}`;
    return usageError(ctx, `records purge takes domains or --all, not both (${got})`, USAGE);
  }
  const { purged } = await withStore(ctx, (store) =>
    purgeRecords(store, all ? { all } : { domains }, ctx.config, CLI_ACTOR),
  );
  ctx.stdout.write(`Purged ${purged} cached record${purged === 1 ? "" : "s"}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand("records", { purge }, USAGE, args, ctx);
}
