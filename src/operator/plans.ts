/** Plans (docs/api.md "Keys, plans, quotas"); a plan's period is 30 days unless told otherwise. */
import { type Static, Type } from "typebox";
import { nullable } from "../core/schema-types.js";
import type { Plan, Store } from "../store/index.js";
import { type Actor, audited } from "./audit.js";
import { PlanName } from "./keys.js";

const DEFAULT_PERIOD_DAYS = 30;

export const Quota = nullable<number>("integer", {
  minimum: 0,
  maximum: 2_147_483_647,
  description: "Requests per period; null: unlimited (still counted).",
});
const PeriodDays = Type.Integer({ minimum: 1, maximum: 3650, description: "Length of a period in days." });

export const PlanSchema = Type.Object({ name: Type.String(), quota: Quota, period_days: Type.Integer() });
export type PlanJson = Static<typeof PlanSchema>;

export const CreatePlanBody = Type.Object({
  name: PlanName,
  quota: Quota,
  period_days: Type.Optional(PeriodDays),
});
export const UpdatePlanBody = Type.Object({
  quota: Type.Optional(Quota),
  period_days: Type.Optional(PeriodDays),
});
export const PlanNameParams = Type.Object({ name: Type.String() });

type PlanStore = Pick<Store, "plans" | "transaction">;

function planJson(plan: Plan): PlanJson {
  return { name: plan.name, quota: plan.quota, period_days: plan.periodDays };
}

export async function listPlans(store: Pick<Store, "plans">): Promise<PlanJson[]> {
  return (await store.plans.listPlans()).map(planJson);
}

export function createPlan(
  store: PlanStore,
  body: Static<typeof CreatePlanBody>,
  actor: Actor,
): Promise<PlanJson> {
  const { name, quota, period_days: periodDays = DEFAULT_PERIOD_DAYS } = body;
  return audited(
    store,
    actor,
    async (trx) => planJson(await trx.plans.createPlan({ name, quota, periodDays })),
    (plan) => ({ action: "plan.create", entity: { kind: "plan", id: name }, detail: plan }),
  );
}

/** Changes what the body names; keys on the plan count against it at once (the change signal). */
export function updatePlan(
  store: PlanStore,
  name: string,
  { quota, period_days: periodDays }: Static<typeof UpdatePlanBody>,
  actor: Actor,
): Promise<PlanJson> {
  const changes = {
    ...(quota !== undefined ? { quota } : {}),
    ...(periodDays !== undefined ? { periodDays } : {}),
  };
  return audited(
    store,
    actor,
    async (trx) => planJson(await trx.plans.updatePlan(name, changes)),
    (plan) => ({ action: "plan.update", entity: { kind: "plan", id: name }, detail: plan }),
  );
}

/** Deletes a plan no key uses (`plan_in_use` while one does, revoked ones included). */
export function deletePlan(store: PlanStore, name: string, actor: Actor): Promise<void> {
  return audited(
    store,
    actor,
    (trx) => trx.plans.deletePlan(name),
    () => ({ action: "plan.delete", entity: { kind: "plan", id: name } }),
  );
}
