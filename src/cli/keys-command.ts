/**
 * `mailrisk keys create|list|show|set-plan|set-origins|revoke` (docs/api.md "Keys,
 * plans, quotas", "CLI"): the CLI's adapter of src/operator/keys.ts and usage.ts. A new
 * key's secret is printed once. Exit codes: 0 done, 1 unknown plan or key, 2 bad
 * arguments or origins.
 */

import { DAY_MS } from "../core/time.js";
import { CLI_ACTOR } from "../operator/audit.js";
import { type KeyWithUsage, keyUsage } from "../operator/key-usage.js";
import { createKey, type KeyJson, listKeys, revokeKey, setKeyOrigins, setKeyPlan } from "../operator/keys.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage-text.js";
import { listing, withStore, writeJson } from "./with-store.js";

async function create(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({
    args,
    options: {
      plan: { type: "string" },
      name: { type: "string" },
      publishable: { type: "boolean" },
      origin: { type: "string", multiple: true },
      json: { type: "boolean" },
    },
    allowPositionals: false,
  });
  const usage = usageOf("keys", "create");
  if (!result.ok) return usageError(ctx, result.message, usage);
  const { plan, name, publishable, origin: origins, json } = result.parsed.values;
  if (plan === undefined)
    return usageError(ctx, 'keys create needs --plan P (see "mailrisk plans list")', usage);
  const key = await withStore(ctx, (store) =>
    createKey(store, { plan, name, publishable, origins }, ctx.clock(), CLI_ACTOR),
  );
  if (json) {
    writeJson(ctx, key);
    return 0;
  }
  const kind = key.publishable ? `publishable key ${key.id} for ${key.origins.join(", ")}` : `key ${key.id}`;
  ctx.stdout.write(
    `Created ${kind} on plan ${key.plan}${key.name ? ` (${key.name})` : ""}.\n` +
      `The key is shown only this once; store it now:\n\n  ${key.key}\n\n`,
  );
  return 0;
}

function status(key: KeyJson): string {
  return key.revoked_at ? `revoked ${key.revoked_at}` : "active";
}

/** A key's origins for a person: a publishable key's, or "-" for a secret key (usable from anywhere but a page). */
function originsText(key: KeyJson): string {
  return key.publishable ? key.origins.join(" ") : "-";
}

/** `quota` of a plan or what is left of it, for a person: a number or "unlimited". */
export function quotaText(quota: number | null): string {
  return quota === null ? "unlimited" : String(quota);
}

function keysText(keys: KeyJson[]): string {
  if (keys.length === 0) return 'No keys. Create one with "mailrisk keys create --plan free".\n';
  const header = ["ID", "KEY", "PLAN", "NAME", "CREATED", "STATUS", "ORIGINS"];
  const rows = keys.map((k) => [
    k.id,
    `${k.prefix}…`,
    k.plan,
    k.name ?? "-",
    k.created_at,
    status(k),
    originsText(k),
  ]);
  return `${formatTable([header, ...rows])}\n`;
}

function usageText(key: KeyWithUsage): string {
  const { usage } = key;
  const days = Math.round((Date.parse(usage.reset_at) - Date.parse(usage.period_start)) / DAY_MS);
  const rows = [
    ["id", key.id],
    ["key", `${key.prefix}…`],
    ["kind", key.publishable ? "publishable" : "secret"],
    ["origins", originsText(key)],
    ["name", key.name ?? "-"],
    ["plan", `${key.plan} (${quotaText(usage.limit)} per ${days} days)`],
    ["created", key.created_at],
    ["status", status(key)],
    ["period", `${usage.period_start} to ${usage.reset_at}`],
    ["used", String(usage.used)],
    ["remaining", quotaText(usage.remaining)],
  ];
  const history = usage.periods.map((period) => [period.period_start, String(period.used)]);
  return `${formatTable(rows)}\n\n${formatTable([["PERIOD START", "USED"], ...history])}\n`;
}

/** `keys <sub> <id>` and, when `more` names them, the words after the id; else a usage error (exit 2). */
function keyArguments(args: string[], ctx: CliContext, sub: string, more?: string) {
  const usage = usageOf("keys", sub);
  const options: { json?: { type: "boolean" } } = sub === "show" ? { json: { type: "boolean" } } : {};
  const result = parseArguments({ args, options, allowPositionals: true });
  if (!result.ok) return { code: usageError(ctx, result.message, usage) };
  const [id, ...rest] = result.parsed.positionals;
  const problem =
    id === undefined
      ? `keys ${sub} needs a key id${more ? ` and ${more}` : ""} (see "mailrisk keys list")`
      : more && rest.length === 0
        ? `keys ${sub} ${id} needs ${more}`
        : !more && rest.length > 0
          ? `keys ${sub} takes one key id; "${rest.join(" ")}" is too much`
          : undefined;
  if (problem !== undefined || id === undefined) return { code: usageError(ctx, problem ?? "", usage) };
  return { id, rest, json: result.parsed.values.json === true };
}

async function show(args: string[], ctx: CliContext): Promise<number> {
  const parsed = keyArguments(args, ctx, "show");
  if (parsed.id === undefined) return parsed.code;
  const key = await withStore(ctx, (store) => keyUsage(store, parsed.id, ctx.clock()));
  if (parsed.json) writeJson(ctx, key);
  else ctx.stdout.write(usageText(key));
  return 0;
}

async function setPlan(args: string[], ctx: CliContext): Promise<number> {
  const parsed = keyArguments(args, ctx, "set-plan", "the plan to move it to");
  if (parsed.id === undefined) return parsed.code;
  const [plan, ...extra] = parsed.rest;
  if (extra.length > 0) {
    const usage = usageOf("keys", "set-plan");
    return usageError(
      ctx,
      `keys set-plan takes a key id and a plan; "${extra.join(" ")}" is too much`,
      usage,
    );
  }
  const key = await withStore(ctx, (store) => setKeyPlan(store, parsed.id, plan as string, CLI_ACTOR));
  ctx.stdout.write(`Moved key ${key.id} to plan ${key.plan}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

async function setOrigins(args: string[], ctx: CliContext): Promise<number> {
  const parsed = keyArguments(args, ctx, "set-origins", "at least one origin (e.g. https://shop.example)");
  if (parsed.id === undefined) return parsed.code;
  const key = await withStore(ctx, (store) => setKeyOrigins(store, parsed.id, parsed.rest, CLI_ACTOR));
  ctx.stdout.write(`Key ${key.id} now takes ${key.origins.join(", ")}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

async function revoke(args: string[], ctx: CliContext): Promise<number> {
  const parsed = keyArguments(args, ctx, "revoke");
  if (parsed.id === undefined) return parsed.code;
  await withStore(ctx, (store) => revokeKey(store, parsed.id, ctx.clock(), CLI_ACTOR));
  ctx.stdout.write(`Revoked key ${parsed.id}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const list = (rest: string[], c: CliContext) =>
    listing(rest, c, usageOf("keys", "list"), listKeys, keysText);
  const subcommands = { create, list, show, "set-plan": setPlan, "set-origins": setOrigins, revoke };
  return runSubcommand("keys", subcommands, usageOf("keys"), args, ctx);
}
