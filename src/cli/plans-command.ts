/**
 * `mailrisk plans create|update|list|delete` (docs/api.md "Keys, plans, quotas", "CLI"): the CLI's adapter of
 * src/operator/plans.ts. Exit codes: 0 done, 1 the plan exists already (create), is
 * unknown (update, delete) or keys use it (delete), 2 bad arguments.
 */
import { CLI_ACTOR } from "../operator/audit.js";
import { createPlan, deletePlan, listPlans, type PlanJson, updatePlan } from "../operator/plans.js";
import { parseArguments, runSubcommand, usageError, wholeNumber } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { quotaText } from "./keys-command.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage-text.js";
import { listing, withStore } from "./with-store.js";

const PLAN_OPTIONS = { quota: { type: "string" }, "period-days": { type: "string" } } as const;

/** `<name> [--quota N|unlimited] [--period-days D]` as the admin API's body, or a usage error (exit 2). */
function planArguments(args: string[], ctx: CliContext, command: string) {
  const usage = usageOf("plans", command);
  const fail = (message: string) => ({ code: usageError(ctx, message, usage) }) as const;
  const result = parseArguments({ args, options: PLAN_OPTIONS, allowPositionals: true });
  if (!result.ok) return fail(result.message);
  const [name, ...extra] = result.parsed.positionals;
  const { quota: quotaArg, "period-days": periodArg } = result.parsed.values;
  if (name === undefined) return fail(`plans ${command} needs a plan name`);
  if (extra.length > 0) return fail(`plans ${command} takes one plan name; "${extra.join(" ")}" is too much`);
  const quota = quotaArg === "unlimited" ? null : quotaArg === undefined ? undefined : wholeNumber(quotaArg);
  if (quotaArg !== undefined && quota === undefined)
    return fail(`--quota must be a whole number or "unlimited", got "${quotaArg}"`);
  const periodDays = periodArg === undefined ? undefined : wholeNumber(periodArg);
  if (periodArg !== undefined && periodDays === undefined)
    return fail(`--period-days must be a whole number, got "${periodArg}"`);
  return { name, quota, period_days: periodDays };
}

function planText(plan: PlanJson): string {
  return `${plan.name}: ${quotaText(plan.quota)} requests per ${plan.period_days} days`;
}

async function create(args: string[], ctx: CliContext): Promise<number> {
  const parsed = planArguments(args, ctx, "create");
  if ("code" in parsed) return parsed.code;
  const { quota } = parsed;
  if (quota === undefined)
    return usageError(ctx, "plans create needs --quota N or --quota unlimited", usageOf("plans", "create"));
  const plan = await withStore(ctx, (store) => createPlan(store, { ...parsed, quota }, CLI_ACTOR));
  ctx.stdout.write(`Created plan ${planText(plan)}.\n`);
  return 0;
}

async function update(args: string[], ctx: CliContext): Promise<number> {
  const parsed = planArguments(args, ctx, "update");
  if ("code" in parsed) return parsed.code;
  const { name, ...changes } = parsed;
  if (changes.quota === undefined && changes.period_days === undefined)
    return usageError(
      ctx,
      "plans update needs --quota or --period-days (or both)",
      usageOf("plans", "update"),
    );
  const plan = await withStore(ctx, (store) => updatePlan(store, name, changes, CLI_ACTOR));
  ctx.stdout.write(`Updated plan ${planText(plan)}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

async function remove(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("plans", "delete");
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [name, ...extra] = result.parsed.positionals;
  if (name === undefined) return usageError(ctx, "plans delete needs a plan name", usage);
  if (extra.length > 0)
    return usageError(ctx, `plans delete takes one plan name; "${extra.join(" ")}" is too much`, usage);
  await withStore(ctx, (store) => deletePlan(store, name, CLI_ACTOR));
  ctx.stdout.write(`Deleted plan ${name}.\n`);
  return 0;
}

function plansText(plans: PlanJson[]): string {
  const rows = plans.map((plan) => [plan.name, quotaText(plan.quota), String(plan.period_days)]);
  return `${formatTable([["NAME", "QUOTA", "PERIOD DAYS"], ...rows])}\n`;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const list = (rest: string[], c: CliContext) =>
    listing(rest, c, usageOf("plans", "list"), listPlans, plansText);
  return runSubcommand("plans", { create, update, list, delete: remove }, usageOf("plans"), args, ctx);
}
