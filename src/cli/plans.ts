/**
 * `mailrisk plans create <name> --quota N [--period-days D]` and `plans list [--json]`
 * (docs/api.md §6, §9). Exit codes: 0 done, 1 the plan exists already, 2 bad arguments.
 */
import { InvalidPlanError, PlanExistsError } from "../store/errors.js";
import { parseArguments, runSubcommand, usageError, wholeNumber } from "./arguments.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { withStore } from "./with-store.js";

const USAGE = `usage: mailrisk plans create <name> --quota N [--period-days D]   (D defaults to 30)
       mailrisk plans list [--json]`;

const DEFAULT_PERIOD_DAYS = 30;

async function create(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({
    args,
    options: { quota: { type: "string" }, "period-days": { type: "string" } },
    allowPositionals: true,
  });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const [name, ...extra] = result.parsed.positionals;
  const { quota: quotaText, "period-days": periodText } = result.parsed.values;
  if (name === undefined || extra.length > 0)
    return usageError(ctx, "plans create needs exactly one name", USAGE);
  if (quotaText === undefined) return usageError(ctx, "plans create needs --quota", USAGE);
  const quota = wholeNumber(quotaText);
  if (quota === undefined)
    return usageError(ctx, `--quota must be a whole number, got "${quotaText}"`, USAGE);
  const periodDays = periodText === undefined ? DEFAULT_PERIOD_DAYS : wholeNumber(periodText);
  if (periodDays === undefined) {
    return usageError(ctx, `--period-days must be a whole number, got "${periodText}"`, USAGE);
  }
  try {
    const plan = await withStore(ctx, (store) => store.plans.createPlan({ name, quota, periodDays }));
    ctx.stdout.write(`Created plan ${plan.name}: ${plan.quota} requests per ${plan.periodDays} days.\n`);
    return 0;
  } catch (error) {
    if (error instanceof InvalidPlanError) return usageError(ctx, error.message, USAGE);
    if (!(error instanceof PlanExistsError)) throw error;
    ctx.stderr.write(`mailrisk: ${error.message}\n`);
    return 1;
  }
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: false });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const plans = await withStore(ctx, (store) => store.plans.listPlans());
  if (result.parsed.values.json) {
    const json = plans.map((plan) => ({ name: plan.name, quota: plan.quota, period_days: plan.periodDays }));
    ctx.stdout.write(`${JSON.stringify(json)}\n`);
  } else {
    const rows = plans.map((plan) => [plan.name, String(plan.quota), String(plan.periodDays)]);
    ctx.stdout.write(`${formatTable([["NAME", "QUOTA", "PERIOD DAYS"], ...rows])}\n`);
  }
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand("plans", { create, list }, USAGE, args, ctx);
}
