/** Plans (docs/api.md §6): a name, a quota and the length of its period in days. */
import type { Kysely } from "kysely";
import { InvalidPlanError, PlanExistsError } from "./errors.js";
import type { Database } from "./schema.js";
import type { Plan, PlansRepository } from "./types.js";

const PLAN_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** The quota column is a 32-bit integer. */
const MAX_QUOTA = 2_147_483_647;
const MAX_PERIOD_DAYS = 3650;

function validatePlan(plan: Plan): void {
  if (!PLAN_NAME.test(plan.name)) {
    throw new InvalidPlanError(
      `plan name "${plan.name}" must be 1–64 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  if (!Number.isInteger(plan.quota) || plan.quota < 0 || plan.quota > MAX_QUOTA) {
    throw new InvalidPlanError(`quota must be a whole number from 0 to ${MAX_QUOTA}`);
  }
  if (!Number.isInteger(plan.periodDays) || plan.periodDays < 1 || plan.periodDays > MAX_PERIOD_DAYS) {
    throw new InvalidPlanError(`period must be a whole number of days from 1 to ${MAX_PERIOD_DAYS}`);
  }
}

async function createPlan(db: Kysely<Database>, plan: Plan, now: Date): Promise<Plan> {
  validatePlan(plan);
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
  return rows.map((row) => ({ name: row.name, quota: row.quota, periodDays: row.period_days }));
}

export function createPlansRepository(db: Kysely<Database>): PlansRepository {
  return {
    createPlan: (plan) => createPlan(db, plan, new Date()),
    listPlans: () => listPlans(db),
  };
}
