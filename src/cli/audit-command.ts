/**
 * `mailrisk audit list [--actor A] [--action A] [--entity E] [--limit N] [--json]`
 * (docs/console.md "The audit log"): the CLI's adapter of src/operator/audit.ts.
 * Exit codes: 0 done, 2 bad arguments.
 */
import { type AuditEntryJson, searchAudit } from "../operator/audit.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage-text.js";
import { withStore, writeJson } from "./with-store.js";

function auditText(entries: AuditEntryJson[]): string {
  if (entries.length === 0) return "No changes recorded.\n";
  const rows = entries.map((entry) => [
    entry.at,
    entry.actor,
    entry.action,
    entry.entity_id === null ? entry.entity_kind : `${entry.entity_kind}:${entry.entity_id}`,
    JSON.stringify(entry.detail),
  ]);
  return `${formatTable([["AT", "ACTOR", "ACTION", "ENTITY", "DETAIL"], ...rows])}\n`;
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("audit", "list");
  const result = parseArguments({
    args,
    options: {
      actor: { type: "string" },
      action: { type: "string" },
      entity: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean" },
    },
    allowPositionals: false,
  });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const { json, limit, ...filter } = result.parsed.values;
  const entries = await withStore(ctx, (store) =>
    searchAudit(store, { ...filter, limit: limit === undefined ? undefined : Number(limit) }),
  );
  if (json) writeJson(ctx, entries);
  else ctx.stdout.write(auditText(entries));
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand("audit", { list }, usageOf("audit"), args, ctx);
}
