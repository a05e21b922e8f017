/** `mailrisk plans …` (docs/api.md "Keys, plans, quotas"): adapts src/operator/plans.ts. */
import { CLI_ACTOR } from "../operator/audit.js";
import { createPlan, deletePlan, listPlans, type PlanJson, updatePlan } from "../operator/plans.js";
import { commandRunner, type Given, usageError, wholeNumber } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { quotaText } from "./keys-command.js";
import { formatTable } from "./table.js";
import { answering, withStore } from "./with-store.js";

/** `[--quota N|unlimited] [--period-days D]` as the admin API's body, or what is wrong. */
function planChanges(given: Given) {
  const quotaArg = given.text("quota");
  const periodArg = given.text("period-days");
  const quota = quotaArg === "unlimited" ? null : quotaArg === undefined ? undefined : wholeNumber(quotaArg);
  if (quotaArg !== undefined && quota === undefined)
    return `--quota must be a whole number or "unlimited", got "${quotaArg}"`;
  const periodDays = periodArg === undefined ? undefined : wholeNumber(periodArg);
  if (periodArg !== undefined && periodDays === undefined)
    return `--period-days must be a whole number, got "${periodArg}"`;
  return { quota, period_days: periodDays };
}

function planText(plan: PlanJson): string {
  return `${plan.name}: ${quotaText(plan.quota)} requests per ${plan.period_days} days`;
}

async function create(given: Given, ctx: CliContext): Promise<number> {
  const changes = planChanges(given);
  if (typeof changes === "string") return usageError(ctx, changes, given.usage);
  const { quota } = changes;
  if (quota === undefined)
    return usageError(ctx, "plans create needs --quota N or --quota unlimited", given.usage);
  const body = { ...changes, name: given.words[0] ?? "", quota };
  const plan = await withStore(ctx, (store) => createPlan(store, body, CLI_ACTOR));
  ctx.stdout.write(`Created plan ${planText(plan)}.\n`);
  return 0;
}

async function update(given: Given, ctx: CliContext): Promise<number> {
  const changes = planChanges(given);
  if (typeof changes === "string") return usageError(ctx, changes, given.usage);
  if (changes.quota === undefined && changes.period_days === undefined)
    return usageError(ctx, "plans update needs --quota or --period-days (or both)", given.usage);
  const plan = await withStore(ctx, (store) => updatePlan(store, given.words[0] ?? "", changes, CLI_ACTOR));
  ctx.stdout.write(`Updated plan ${planText(plan)}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

function plansText(plans: PlanJson[]): string {
  const rows = plans.map((plan) => [plan.name, quotaText(plan.quota), String(plan.period_days)]);
  return `${formatTable([["NAME", "QUOTA", "PERIOD DAYS"], ...rows])}\n`;
}

export const run = commandRunner("plans", {
  create,
  update,
  list: answering(listPlans, plansText),
  delete: async ({ words: [name = ""] }, ctx) => {
    await withStore(ctx, (store) => deletePlan(store, name, CLI_ACTOR));
    ctx.stdout.write(`Deleted plan ${name}.\n`);
    return 0;
  },
});
