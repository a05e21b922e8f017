/** Plans (docs/api.md "Keys, plans, quotas"): a name, a quota (null: unlimited) and the length of its period in days. */
import type { Kysely, Selectable } from "kysely";
import { validatePeriodDays, validatePlanName, validateQuota } from "../core/plan-rules.js";
import { PlanExistsError, PlanInUseError, UnknownPlanError } from "../core/refusals.js";
import type { Plan, PlanChanges, PlansRepository } from "./plans-types.js";
import type { Database, PlansTable } from "./schema.js";

function toPlan(row: Pick<Selectable<PlansTable>, "name" | "quota" | "period_days">): Plan {
  return { name: row.name, quota: row.quota, periodDays: row.period_days };
}

async function createPlan(db: Kysely<Database>, plan: Plan, now: Date): Promise<Plan> {
  validatePlanName(plan.name);
  validateQuota(plan.quota);
  validatePeriodDays(plan.periodDays);
  const inserted = await db
    .insertInto("plans")
    .values({ name: plan.name, quota: plan.quota, period_days: plan.periodDays, created_at: now.getTime() })
    .onConflict((oc) => oc.column("name").doNothing())
    .returning("name")
    .executeTakeFirst();
  if (!inserted) throw new PlanExistsError(plan.name);
  return { name: plan.name, quota: plan.quota, periodDays: plan.periodDays };
}

async function listPlans(db: Kysely<Database>): Promise<Plan[]> {
  const rows = await db
    .selectFrom("plans")
    .select(["name", "quota", "period_days"])
    .orderBy("created_at")
    .orderBy("name")
    .execute();
  return rows.map(toPlan);
}

async function getPlan(db: Kysely<Database>, name: string): Promise<Plan | undefined> {
  const row = await db
    .selectFrom("plans")
    .select(["name", "quota", "period_days"])
    .where("name", "=", name)
    .executeTakeFirst();
  return row && toPlan(row);
}

async function updatePlan(db: Kysely<Database>, name: string, changes: PlanChanges): Promise<Plan> {
  if (changes.quota !== undefined) validateQuota(changes.quota);
  if (changes.periodDays !== undefined) validatePeriodDays(changes.periodDays);
  const set = {
    ...(changes.quota !== undefined ? { quota: changes.quota } : {}),
    ...(changes.periodDays !== undefined ? { period_days: changes.periodDays } : {}),
  };
  const updated =
    Object.keys(set).length === 0
      ? await getPlan(db, name)
      : await db
          .updateTable("plans")
          .set(set)
          .where("name", "=", name)
          .returning(["name", "quota", "period_days"])
          .executeTakeFirst()
          .then((row) => row && toPlan(row));
  if (!updated) throw new UnknownPlanError(name);
  return updated;
}

/** Deletes a plan no key uses, in one statement (a key created meanwhile makes its foreign key refuse). */
async function deletePlan(db: Kysely<Database>, name: string): Promise<void> {
  const deleted = await db
    .deleteFrom("plans")
    .where("name", "=", name)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("api_keys").select("id").where("api_keys.plan", "=", name))),
    )
    .returning("name")
    .executeTakeFirst();
  if (deleted) return;
  const { keys } = await db
    .selectFrom("api_keys")
    .select((eb) => eb.fn.countAll<number | string>().as("keys"))
    .where("plan", "=", name)
    .executeTakeFirstOrThrow();
  if (Number(keys) > 0) throw new PlanInUseError(name, Number(keys));
  throw new UnknownPlanError(name);
}

export function createPlansRepository(db: Kysely<Database>): PlansRepository {
  return {
    createPlan: (plan) => createPlan(db, plan, new Date()),
    listPlans: () => listPlans(db),
    getPlan: (name) => getPlan(db, name),
    updatePlan: (name, changes) => updatePlan(db, name, changes),
    deletePlan: (name) => deletePlan(db, name),
  };
}
