/**
 * `mailrisk overrides add allow|deny <domain> [--note T]`,
 * `overrides add never-disposable mx-host|mx-ip|ns <value> [--note T]`,
 * `overrides remove <domain>|mx-host|mx-ip|ns <value>` and `overrides list [--json]`
 * (docs/api.md "CLI", "Administration"): the CLI's adapter of src/operator/overrides.ts.
 * Exit codes: 0 done, 1 nothing to remove, 2 bad arguments.
 */

import type { InfrastructureKind, OverrideKind } from "../core/learned.js";
import { CLI_ACTOR } from "../operator/audit.js";
import { listOverrides, type OverrideJson, removeOverride, setOverride } from "../operator/overrides.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage-text.js";
import { listing, withStore } from "./with-store.js";

const INFRASTRUCTURE: Record<string, InfrastructureKind> = {
  "mx-host": "mx_host",
  "mx-ip": "mx_ip",
  ns: "ns",
};

/** `<domain>` or `mx-host|mx-ip|ns <value>`, or what is wrong with the words. */
function target(words: readonly string[]): { kind: OverrideKind; value: string } | string {
  const [first, second, ...extra] = words;
  if (first === undefined) return "needs a domain, or mx-host, mx-ip or ns and a value";
  if (extra.length > 0) return `"${extra.join(" ")}" is too much after ${first} ${second}`;
  const kind = INFRASTRUCTURE[first];
  if (kind === undefined)
    return second === undefined
      ? { kind: "domain", value: first }
      : `unknown kind "${first}" (mx-host, mx-ip, ns)`;
  return second === undefined ? `${first} needs a value` : { kind, value: second };
}

function overrideRow(override: OverrideJson): string[] {
  return [override.kind, override.value, override.action, override.created_at, override.note ?? ""];
}

async function add(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("overrides", "add");
  const result = parseArguments({ args, options: { note: { type: "string" } }, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [verb, ...rest] = result.parsed.positionals;
  const action =
    verb === "allow" || verb === "deny" ? verb : verb === "never-disposable" ? "never_disposable" : undefined;
  if (action === undefined) {
    const got = verb === undefined ? "" : ` (got "${verb}")`;
    return usageError(ctx, `overrides add needs allow, deny or never-disposable${got}`, usage);
  }
  const what = target(rest);
  if (typeof what === "string") return usageError(ctx, `overrides add ${verb} ${what}`, usage);
  const { note } = result.parsed.values;
  const saved = await withStore(ctx, (store) =>
    setOverride(store, { ...what, action, note }, ctx.clock(), ctx.config, CLI_ACTOR),
  );
  ctx.stdout.write(`Set override: ${saved.kind} ${saved.value} ${action}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

async function remove(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("overrides", "remove");
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const what = target(result.parsed.positionals);
  if (typeof what === "string") return usageError(ctx, `overrides remove ${what}`, usage);
  if (!(await withStore(ctx, (store) => removeOverride(store, what, ctx.config, CLI_ACTOR))).removed) {
    ctx.stderr.write(`mailrisk: there is no override of ${what.kind} ${what.value}\n`);
    return 1;
  }
  ctx.stdout.write(`Removed override: ${what.kind} ${what.value}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

function overridesText(overrides: OverrideJson[]): string {
  return `${formatTable([["KIND", "VALUE", "ACTION", "SINCE", "NOTE"], ...overrides.map(overrideRow)])}\n`;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const list = (rest: string[], c: CliContext) =>
    listing(rest, c, usageOf("overrides", "list"), listOverrides, overridesText);
  return runSubcommand("overrides", { add, remove, list }, usageOf("overrides"), args, ctx);
}
