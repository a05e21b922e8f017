/**
 * `mailrisk plans create <name> --quota N|unlimited [--period-days D]`,
 * `plans update <name> [--quota N|unlimited] [--period-days D]`, `plans list [--json]`
 * and `plans delete <name>` (docs/api.md §6, §9). Exit codes: 0 done, 1 the plan exists
 * already (create), is unknown (update, delete) or keys use it (delete), 2 bad arguments.
 */
import { InvalidPlanError, PlanExistsError, PlanInUseError, UnknownPlanError } from "../store/errors.js";
import { planJson } from "../store/json.js";
import type { Plan, PlanChanges } from "../store/types.js";
import { parseArguments, runSubcommand, usageError, wholeNumber } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { quotaText } from "./keys.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage.js";
import { withStore } from "./with-store.js";

const USAGE = usageOf("plans");

const DEFAULT_PERIOD_DAYS = 30;

const PLAN_OPTIONS = { quota: { type: "string" }, "period-days": { type: "string" } } as const;

type Parsed<T> = { ok: true; value: T } | { ok: false; code: number };

/** The plan name and the changes its options ask for, or a usage error (exit 2). */
function planArguments(
  args: string[],
  ctx: CliContext,
  command: string,
): Parsed<{ name: string } & PlanChanges> {
  const usage = usageOf("plans", command);
  const result = parseArguments({ args, options: PLAN_OPTIONS, allowPositionals: true });
  if (!result.ok) return { ok: false, code: usageError(ctx, result.message, usage) };
  const [name, ...extra] = result.parsed.positionals;
  const { quota: quotaArg, "period-days": periodArg } = result.parsed.values;
  if (name === undefined)
    return { ok: false, code: usageError(ctx, `plans ${command} needs a plan name`, usage) };
  if (extra.length > 0) {
    return {
      ok: false,
      code: usageError(ctx, `plans ${command} takes one plan name; "${extra.join(" ")}" is too much`, usage),
    };
  }
  const quota = quotaArg === "unlimited" ? null : quotaArg === undefined ? undefined : wholeNumber(quotaArg);
  if (quotaArg !== undefined && quota === undefined) {
    return {
      ok: false,
      code: usageError(ctx, `--quota must be a whole number or "unlimited", got "${quotaArg}"`, usage),
    };
  }
  const periodDays = periodArg === undefined ? undefined : wholeNumber(periodArg);
  if (periodArg !== undefined && periodDays === undefined) {
    return {
      ok: false,
      code: usageError(ctx, `--period-days must be a whole number, got "${periodArg}"`, usage),
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
  if (quota === undefined) {
    return usageError(ctx, "plans create needs --quota N or --quota unlimited", usageOf("plans", "create"));
  }
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
    return usageError(
      ctx,
      "plans update needs --quota or --period-days (or both)",
      usageOf("plans", "update"),
    );
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
  if (!result.ok) return usageError(ctx, result.message, usageOf("plans", "list"));
  const plans = await withStore(ctx, (store) => store.plans.listPlans());
  if (result.parsed.values.json) {
    ctx.stdout.write(`${JSON.stringify(plans.map(planJson))}\n`);
  } else {
    const rows = plans.map((plan) => [plan.name, quotaText(plan.quota), String(plan.periodDays)]);
    ctx.stdout.write(`${formatTable([["NAME", "QUOTA", "PERIOD DAYS"], ...rows])}\n`);
  }
  return 0;
}

async function remove(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("plans", "delete");
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [name, ...extra] = result.parsed.positionals;
  if (name === undefined) return usageError(ctx, "plans delete needs a plan name", usage);
  if (extra.length > 0) {
    return usageError(ctx, `plans delete takes one plan name; "${extra.join(" ")}" is too much`, usage);
  }
  try {
    await withStore(ctx, (store) => store.plans.deletePlan(name));
    ctx.stdout.write(`Deleted plan ${name}.\n`);
    return 0;
  } catch (error) {
    if (error instanceof PlanInUseError) {
      ctx.stderr.write(
        `mailrisk: ${error.message}; move them to another plan first ("mailrisk keys set-plan <id> <plan>", "mailrisk keys list")\n`,
      );
      return 1;
    }
    if (!(error instanceof UnknownPlanError)) throw error;
    ctx.stderr.write(`mailrisk: ${error.message}; see "mailrisk plans list"\n`);
    return 1;
  }
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand("plans", { create, update, list, delete: remove }, USAGE, args, ctx);
}
