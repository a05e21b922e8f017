/**
 * `mailrisk keys …` (docs/api.md "Keys, plans, quotas"): the CLI's adapter of src/operator/keys.ts
 * and key-usage.ts; a new key's secret is printed once. Forms and exit codes in commands.ts.
 */
import { DAY_MS } from "../core/time.js";
import { CLI_ACTOR } from "../operator/audit.js";
import { type KeyWithUsage, keyUsage } from "../operator/key-usage.js";
import { createKey, type KeyJson, listKeys, revokeKey, setKeyOrigins, setKeyPlan } from "../operator/keys.js";
import { commandRunner, type Given, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { answer, answering, withStore } from "./with-store.js";

async function create(given: Given, ctx: CliContext): Promise<number> {
  const plan = given.text("plan");
  if (plan === undefined)
    return usageError(ctx, 'keys create needs --plan P (see "mailrisk plans list")', given.usage);
  const body = {
    plan,
    name: given.text("name"),
    publishable: given.flag("publishable"),
    origins: given.list("origin"),
  };
  const key = await withStore(ctx, (store) => createKey(store, body, ctx.clock(), CLI_ACTOR));
  return answer(ctx, given, key, () => {
    const kind = key.publishable
      ? `publishable key ${key.id} for ${key.origins.join(", ")}`
      : `key ${key.id}`;
    return (
      `Created ${kind} on plan ${key.plan}${key.name ? ` (${key.name})` : ""}.\n` +
      `The key is shown only this once; store it now:\n\n  ${key.key}\n\n`
    );
  });
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

export const run = commandRunner("keys", {
  create,
  list: answering(listKeys, keysText),
  show: answering((store, { words: [id = ""] }, ctx) => keyUsage(store, id, ctx.clock()), usageText),
  "set-plan": answering(
    (store, { words: [id = "", plan = ""] }) => setKeyPlan(store, id, plan, CLI_ACTOR),
    (key) => `Moved key ${key.id} to plan ${key.plan}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  ),
  "set-origins": answering(
    (store, { words: [id = "", ...origins] }) => setKeyOrigins(store, id, origins, CLI_ACTOR),
    (key) => `Key ${key.id} now takes ${key.origins.join(", ")}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  ),
  revoke: answering(
    (store, { words: [id = ""] }, ctx) => revokeKey(store, id, ctx.clock(), CLI_ACTOR),
    (key) => `Revoked key ${key.id}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  ),
});
