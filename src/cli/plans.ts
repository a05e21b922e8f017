/**
 * `mailrisk plans create <name> --quota N|unlimited [--period-days D]`,
 * `plans update <name> [--quota N|unlimited] [--period-days D]` and `plans list [--json]`
 * (docs/api.md §6, §9). Exit codes: 0 done, 1 the plan exists already (create) or is
 * unknown (update), 2 bad arguments.
 */
import { InvalidPlanError, PlanExistsError, UnknownPlanError } from "../store/errors.js";
import { planJson } from "../store/json.js";
import type { Plan, PlanChanges } from "../store/types.js";
import { parseArguments, runSubcommand, usageError, wholeNumber } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { quotaText } from "./keys.js";
import { formatTable } from "./table.js";
import { withStore } from "./with-store.js";

const USAGE = `usage: mailrisk plans create <name> --quota N|unlimited [--period-days D]   (D defaults to 30)
       mailrisk plans update <name> [--quota N|unlimited] [--period-days D]
       mailrisk plans list [--json]`;

const DEFAULT_PERIOD_DAYS = 30;

const PLAN_OPTIONS = { quota: { type: "string" }, "period-days": { type: "string" } } as const;

type Parsed<T> = { ok: true; value: T } | { ok: false; code: number };

/** The plan name and the changes its options ask for, or a usage error (exit 2). */
function planArguments(
  args: string[],
  ctx: CliContext,
  command: string,
): Parsed<{ name: string } & PlanChanges> {
  const result = parseArguments({ args, options: PLAN_OPTIONS, allowPositionals: true });
  if (!result.ok) return { ok: false, code: usageError(ctx, result.message, USAGE) };
  const [name, ...extra] = result.parsed.positionals;
  const { quota: quotaArg, "period-days": periodArg } = result.parsed.values;
  if (name === undefined || extra.length > 0) {
    return { ok: false, code: usageError(ctx, `plans ${command} needs exactly one name`, USAGE) };
  }
  const quota = quotaArg === "unlimited" ? null : quotaArg === undefined ? undefined : wholeNumber(quotaArg);
  if (quotaArg !== undefined && quota === undefined) {
    return {
      ok: false,
      code: usageError(ctx, `--quota must be a whole number or "unlimited", got "${quotaArg}"`, USAGE),
    };
  }
  const periodDays = periodArg === undefined ? undefined : wholeNumber(periodArg);
  if (periodArg !== undefined && periodDays === undefined) {
    return {
      ok: false,
      code: usageError(ctx, `--period-days must be a whole number, got "${periodArg}"`, USAGE),
    };
  }
  return {
    ok: true,
    value: {
      name,
      ...(quota !== undefined ? { quota } : {}),
      ...(periodDays !== undefined ? { periodDays } : {}),
    },
  };
}

function planText(plan: Plan): string {
  return `${plan.name}: ${quotaText(plan.quota)} requests per ${plan.periodDays} days`;
}

/** Runs a change of plans: exit 1 with the store's message for `refused`, 2 for an invalid plan. */
async function change(
  ctx: CliContext,
  work: () => Promise<Plan>,
  said: (plan: string) => string,
  refused: new (...args: never[]) => Error,
) {
  try {
    ctx.stdout.write(`${said(planText(await work()))}\n`);
    return 0;
  } catch (error) {
    if (error instanceof InvalidPlanError) return usageError(ctx, error.message, USAGE);
    if (!(error instanceof refused)) throw error;
    ctx.stderr.write(`mailrisk: ${error.message}\n`);
    return 1;
  }
}

async function create(args: string[], ctx: CliContext): Promise<number> {
  const parsed = planArguments(args, ctx, "create");
  if (!parsed.ok) return parsed.code;
  const { name, quota, periodDays = DEFAULT_PERIOD_DAYS } = parsed.value;
  if (quota === undefined) return usageError(ctx, "plans create needs --quota", USAGE);
  return change(
    ctx,
    () => withStore(ctx, (store) => store.plans.createPlan({ name, quota, periodDays })),
    (plan) => `Created plan ${plan}.`,
    PlanExistsError,
  );
}

async function update(args: string[], ctx: CliContext): Promise<number> {
  const parsed = planArguments(args, ctx, "update");
  if (!parsed.ok) return parsed.code;
  const { name, ...changes } = parsed.value;
  if (Object.keys(changes).length === 0) {
    return usageError(ctx, "plans update needs --quota or --period-days", USAGE);
  }
  return change(
    ctx,
    () => withStore(ctx, (store) => store.plans.updatePlan(name, changes)),
    (plan) => `Updated plan ${plan}. ${TAKEN_BY_RUNNING_SERVERS}`,
    UnknownPlanError,
  );
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: false });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const plans = await withStore(ctx, (store) => store.plans.listPlans());
  if (result.parsed.values.json) {
    ctx.stdout.write(`${JSON.stringify(plans.map(planJson))}\n`);
  } else {
    const rows = plans.map((plan) => [plan.name, quotaText(plan.quota), String(plan.periodDays)]);
    ctx.stdout.write(`${formatTable([["NAME", "QUOTA", "PERIOD DAYS"], ...rows])}\n`);
  }
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand("plans", { create, update, list }, USAGE, args, ctx);
}
