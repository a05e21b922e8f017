/**
 * `mailrisk keys create --plan P [--name N] [--publishable --origin O…] [--json]`,
 * `keys list [--json]`, `keys show <id> [--json]`, `keys set-plan <id> <plan>`,
 * `keys set-origins <id> <origin>…`, `keys revoke <id>` (docs/api.md §6, §9). A new
 * key's secret is printed once and never again.
 * Exit codes: 0 done, 1 unknown plan or key, 2 bad arguments or origins.
 */
import { formatTimestamp } from "../core/record.js";
import { InvalidOriginsError, UnknownKeyError, UnknownPlanError } from "../store/errors.js";
import { keyJson, keyUsageJson } from "../store/json.js";
import type { ApiKey, KeyUsage } from "../store/types.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage.js";
import { withStore } from "./with-store.js";

const USAGE = usageOf("keys");

/** Origins a store refused: what is wrong, then the usage; exit code 2. */
function invalidOrigins(ctx: CliContext, error: InvalidOriginsError, sub: string): number {
  return usageError(ctx, error.message, usageOf("keys", sub));
}

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
  if (!result.ok) return usageError(ctx, result.message, usageOf("keys", "create"));
  const { plan, name, publishable = false, origin: origins = [], json } = result.parsed.values;
  if (plan === undefined) {
    return usageError(
      ctx,
      'keys create needs --plan P (see "mailrisk plans list")',
      usageOf("keys", "create"),
    );
  }
  try {
    const { key, secret } = await withStore(ctx, (store) =>
      store.keys.createKey({ plan, name: name ?? null, now: new Date(), publishable, origins }),
    );
    if (json) {
      const shown = { id: key.id, key: secret, plan: key.plan };
      ctx.stdout.write(`${JSON.stringify(key.publishable ? { ...shown, origins: key.origins } : shown)}\n`);
    } else {
      const kind = key.publishable
        ? `publishable key ${key.id} for ${key.origins.join(", ")}`
        : `key ${key.id}`;
      ctx.stdout.write(
        `Created ${kind} on plan ${key.plan}${key.name ? ` (${key.name})` : ""}.\n` +
          "The key is shown only this once; store it now:\n\n" +
          `  ${secret}\n\n`,
      );
    }
    return 0;
  } catch (error) {
    if (error instanceof InvalidOriginsError) return invalidOrigins(ctx, error, "create");
    if (!(error instanceof UnknownPlanError)) throw error;
    ctx.stderr.write(`mailrisk: ${error.message}; see "mailrisk plans list"\n`);
    return 1;
  }
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: false });
  if (!result.ok) return usageError(ctx, result.message, usageOf("keys", "list"));
  const keys = await withStore(ctx, (store) => store.keys.listKeys());
  if (result.parsed.values.json) {
    ctx.stdout.write(`${JSON.stringify(keys.map(keyJson))}\n`);
  } else if (keys.length === 0) {
    ctx.stdout.write('No keys. Create one with "mailrisk keys create --plan free".\n');
  } else {
    const rows = keys.map((key) => [
      key.id,
      `${key.prefix}…`,
      key.plan,
      key.name ?? "-",
      formatTimestamp(key.createdAt),
      key.revokedAt ? `revoked ${formatTimestamp(key.revokedAt)}` : "active",
      originsText(key),
    ]);
    ctx.stdout.write(
      `${formatTable([["ID", "KEY", "PLAN", "NAME", "CREATED", "STATUS", "ORIGINS"], ...rows])}\n`,
    );
  }
  return 0;
}

/** A key's origins for a person: a publishable key's, or "-" for a secret key (usable from anywhere but a page). */
function originsText(key: ApiKey): string {
  return key.publishable ? key.origins.join(" ") : "-";
}

/** `quota` of a plan or what is left of it, for a person: a number or "unlimited". */
export function quotaText(quota: number | null): string {
  return quota === null ? "unlimited" : String(quota);
}

function usageText({ key, plan, current, periods }: KeyUsage): string {
  const rows = [
    ["id", key.id],
    ["key", `${key.prefix}…`],
    ["kind", key.publishable ? "publishable" : "secret"],
    ["origins", originsText(key)],
    ["name", key.name ?? "-"],
    ["plan", `${plan.name} (${quotaText(plan.quota)} per ${plan.periodDays} days)`],
    ["created", formatTimestamp(key.createdAt)],
    ["status", key.revokedAt ? `revoked ${formatTimestamp(key.revokedAt)}` : "active"],
    ["period", `${formatTimestamp(current.periodStart)} to ${formatTimestamp(current.resetAt)}`],
    ["used", String(current.used)],
    ["remaining", quotaText(current.remaining)],
  ];
  const history = periods.map((period) => [formatTimestamp(period.periodStart), String(period.used)]);
  return `${formatTable(rows)}\n\n${formatTable([["PERIOD START", "USED"], ...history])}\n`;
}

/** Exactly one positional argument, or a usage error (exit 2). */
function oneId(args: string[], options: { json?: { type: "boolean" } }, sub: string, ctx: CliContext) {
  const usage = usageOf("keys", sub);
  const result = parseArguments({ args, options, allowPositionals: true });
  if (!result.ok) return { code: usageError(ctx, result.message, usage) };
  const [id, ...extra] = result.parsed.positionals;
  if (id === undefined)
    return { code: usageError(ctx, `keys ${sub} needs a key id (see "mailrisk keys list")`, usage) };
  if (extra.length > 0) {
    return { code: usageError(ctx, `keys ${sub} takes one key id; "${extra.join(" ")}" is too much`, usage) };
  }
  return { id, json: result.parsed.values.json === true };
}

function unknownKey(ctx: CliContext, id: string): number {
  ctx.stderr.write(`mailrisk: unknown key "${id}"; see "mailrisk keys list"\n`);
  return 1;
}

async function show(args: string[], ctx: CliContext): Promise<number> {
  const parsed = oneId(args, { json: { type: "boolean" } }, "show", ctx);
  if (parsed.id === undefined) return parsed.code;
  const usage = await withStore(ctx, (store) => store.usage.keyUsage(parsed.id, new Date()));
  if (!usage) return unknownKey(ctx, parsed.id);
  ctx.stdout.write(parsed.json ? `${JSON.stringify(keyUsageJson(usage))}\n` : usageText(usage));
  return 0;
}

async function setPlan(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("keys", "set-plan");
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [id, plan, ...extra] = result.parsed.positionals;
  if (id === undefined) return usageError(ctx, "keys set-plan needs a key id and a plan", usage);
  if (plan === undefined) return usageError(ctx, `keys set-plan needs the plan to move ${id} to`, usage);
  if (extra.length > 0) {
    return usageError(
      ctx,
      `keys set-plan takes a key id and a plan; "${extra.join(" ")}" is too much`,
      usage,
    );
  }
  try {
    const key = await withStore(ctx, (store) => store.keys.setKeyPlan(id, plan));
    ctx.stdout.write(`Moved key ${key.id} to plan ${key.plan}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UnknownKeyError) return unknownKey(ctx, id);
    if (!(error instanceof UnknownPlanError)) throw error;
    ctx.stderr.write(`mailrisk: ${error.message}; see "mailrisk plans list"\n`);
    return 1;
  }
}

async function setOrigins(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("keys", "set-origins");
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [id, ...origins] = result.parsed.positionals;
  if (id === undefined) return usageError(ctx, "keys set-origins needs a key id and its origins", usage);
  if (origins.length === 0) {
    return usageError(
      ctx,
      `keys set-origins needs at least one origin for ${id}, e.g. https://shop.example`,
      usage,
    );
  }
  try {
    const key = await withStore(ctx, (store) => store.keys.setKeyOrigins(id, origins));
    ctx.stdout.write(`Key ${key.id} now takes ${key.origins.join(", ")}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UnknownKeyError) return unknownKey(ctx, id);
    if (error instanceof InvalidOriginsError) return invalidOrigins(ctx, error, "set-origins");
    throw error;
  }
}

async function revoke(args: string[], ctx: CliContext): Promise<number> {
  const parsed = oneId(args, {}, "revoke", ctx);
  if (parsed.id === undefined) return parsed.code;
  if (!(await withStore(ctx, (store) => store.keys.revokeKey(parsed.id, new Date())))) {
    return unknownKey(ctx, parsed.id);
  }
  ctx.stdout.write(`Revoked key ${parsed.id}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand(
    "keys",
    { create, list, show, "set-plan": setPlan, "set-origins": setOrigins, revoke },
    USAGE,
    args,
    ctx,
  );
}
