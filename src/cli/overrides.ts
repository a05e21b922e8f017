/**
 * `mailrisk overrides add allow|deny <domain> [--note T]`,
 * `overrides add never-disposable mx-host|mx-ip|ns <value> [--note T]`,
 * `overrides remove <domain>`, `overrides remove mx-host|mx-ip|ns <value>` and
 * `overrides list [--json]` (docs/api.md §9, §10): the operator's word on a domain or on
 * mail infrastructure, kept in the database. Records an override decides are purged.
 * Exit codes: 0 done, 1 nothing to remove, 2 bad arguments.
 */
import { parseDomain } from "../core/input.js";
import {
  type InfrastructureKind,
  infrastructureValue,
  type OverrideAction,
  type OverrideKind,
} from "../core/learned.js";
import { formatTimestamp } from "../core/record.js";
import type { NameRules } from "../core/reserved-names.js";
import { applyOverride } from "../service/overrides.js";
import { overrideJson } from "../store/json.js";
import type { Override } from "../store/types.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage.js";
import { withStore } from "./with-store.js";

const USAGE = usageOf("overrides");

const INFRASTRUCTURE: Record<string, InfrastructureKind> = {
  "mx-host": "mx_host",
  "mx-ip": "mx_ip",
  ns: "ns",
};

type Target = { ok: true; kind: OverrideKind; value: string } | { ok: false; message: string };

/** `<domain>` or `mx-host|mx-ip|ns <value>`, normalised as the check sees them. */
function target(words: readonly string[], rules: NameRules): Target {
  const [first, second, ...extra] = words;
  if (first === undefined)
    return { ok: false, message: "needs a domain, or mx-host, mx-ip or ns and a value" };
  if (extra.length > 0)
    return { ok: false, message: `"${extra.join(" ")}" is too much after ${first} ${second}` };
  const kind = INFRASTRUCTURE[first];
  if (kind !== undefined) {
    if (second === undefined) return { ok: false, message: `${first} needs a value` };
    const infrastructure = infrastructureValue(kind, second);
    if (!infrastructure.ok) return { ok: false, message: infrastructure.problem };
    return { ok: true, kind, value: infrastructure.value };
  }
  if (second !== undefined) return { ok: false, message: `unknown kind "${first}" (mx-host, mx-ip, ns)` };
  const parsed = parseDomain(first, rules);
  if (!parsed.ok) return { ok: false, message: `"${first}" is not a domain: ${parsed.problem.detail}` };
  return { ok: true, kind: "domain", value: parsed.input.domain };
}

export function overrideRow(override: Override): string[] {
  return [
    override.kind,
    override.value,
    override.action,
    formatTimestamp(override.createdAt),
    override.note ?? "",
  ];
}

async function add(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("overrides", "add");
  const result = parseArguments({ args, options: { note: { type: "string" } }, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [verb, ...rest] = result.parsed.positionals;
  const action: OverrideAction | undefined =
    verb === "allow" || verb === "deny" ? verb : verb === "never-disposable" ? "never_disposable" : undefined;
  if (action === undefined) {
    const got = verb === undefined ? "" : ` (got "${verb}")`;
    return usageError(ctx, `overrides add needs allow, deny or never-disposable${got}`, usage);
  }
  const what = target(rest, ctx.config);
  if (!what.ok) return usageError(ctx, `overrides add ${verb} ${what.message}`, usage);
  if ((what.kind === "domain") !== (action !== "never_disposable")) {
    return usageError(
      ctx,
      "allow and deny take a domain; never-disposable takes mx-host, mx-ip or ns",
      usage,
    );
  }
  const override: Override = {
    kind: what.kind,
    value: what.value,
    action,
    note: result.parsed.values.note ?? null,
    createdAt: new Date(),
  };
  await withStore(ctx, (store) => applyOverride(store, override));
  ctx.stdout.write(`Set override: ${what.kind} ${what.value} ${action}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

async function remove(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("overrides", "remove");
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const what = target(result.parsed.positionals, ctx.config);
  if (!what.ok) return usageError(ctx, `overrides remove ${what.message}`, usage);
  const removed = await withStore(ctx, (store) => store.overrides.removeOverride(what.kind, what.value));
  if (!removed) {
    ctx.stderr.write(`mailrisk: there is no override of ${what.kind} ${what.value}\n`);
    return 1;
  }
  ctx.stdout.write(`Removed override: ${what.kind} ${what.value}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: false });
  if (!result.ok) return usageError(ctx, result.message, usageOf("overrides", "list"));
  const overrides = await withStore(ctx, (store) => store.overrides.listOverrides());
  if (result.parsed.values.json) {
    ctx.stdout.write(`${JSON.stringify(overrides.map(overrideJson))}\n`);
  } else {
    const header = ["KIND", "VALUE", "ACTION", "SINCE", "NOTE"];
    ctx.stdout.write(`${formatTable([header, ...overrides.map(overrideRow)])}\n`);
  }
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand("overrides", { add, remove, list }, USAGE, args, ctx);
}
