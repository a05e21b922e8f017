/**
 * `mailrisk keys create --plan P [--name N] [--json]`, `keys list [--json]`,
 * `keys revoke <id>` (docs/api.md §6, §9). A new key's secret is printed once and never again.
 * Exit codes: 0 done, 1 unknown plan or key, 2 bad arguments.
 */
import { formatTimestamp } from "../core/record.js";
import { UnknownPlanError } from "../store/errors.js";
import type { ApiKey } from "../store/types.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { withStore } from "./with-store.js";

const USAGE = `usage: mailrisk keys create --plan P [--name N] [--json]
       mailrisk keys list [--json]
       mailrisk keys revoke <id>`;

async function create(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({
    args,
    options: { plan: { type: "string" }, name: { type: "string" }, json: { type: "boolean" } },
    allowPositionals: false,
  });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const { plan, name, json } = result.parsed.values;
  if (plan === undefined) return usageError(ctx, "keys create needs --plan", USAGE);
  try {
    const { key, secret } = await withStore(ctx, (store) =>
      store.keys.createKey({ plan, name: name ?? null, now: new Date() }),
    );
    if (json) {
      ctx.stdout.write(`${JSON.stringify({ id: key.id, key: secret, plan: key.plan })}\n`);
    } else {
      ctx.stdout.write(
        `Created key ${key.id} on plan ${key.plan}${key.name ? ` (${key.name})` : ""}.\n` +
          "The key is shown only this once; store it now:\n\n" +
          `  ${secret}\n\n`,
      );
    }
    return 0;
  } catch (error) {
    if (!(error instanceof UnknownPlanError)) throw error;
    ctx.stderr.write(`mailrisk: ${error.message}; see "mailrisk plans list"\n`);
    return 1;
  }
}

function keyJson(key: ApiKey) {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    plan: key.plan,
    created_at: formatTimestamp(key.createdAt),
    revoked_at: key.revokedAt ? formatTimestamp(key.revokedAt) : null,
  };
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: false });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
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
    ]);
    ctx.stdout.write(`${formatTable([["ID", "KEY", "PLAN", "NAME", "CREATED", "STATUS"], ...rows])}\n`);
  }
  return 0;
}

async function revoke(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const [id, ...extra] = result.parsed.positionals;
  if (id === undefined || extra.length > 0)
    return usageError(ctx, "keys revoke needs exactly one key id", USAGE);
  if (!(await withStore(ctx, (store) => store.keys.revokeKey(id, new Date())))) {
    ctx.stderr.write(`mailrisk: unknown key "${id}"; see "mailrisk keys list"\n`);
    return 1;
  }
  ctx.stdout.write(`Revoked key ${id}.\n`);
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand("keys", { create, list, revoke }, USAGE, args, ctx);
}
