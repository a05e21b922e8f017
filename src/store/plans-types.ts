/** Plans: the repository's contract and rows, implemented in src/store/plans-repository.ts. */

export interface Plan {
  name: string;
  /** Requests per period; null: unlimited (the built-in `unlimited` plan), still counted. */
  quota: number | null;
  periodDays: number;
}

/** What `updatePlan` changes; an absent field keeps its value. */
export interface PlanChanges {
  quota?: number | null;
  periodDays?: number;
}

/** Plans (docs/api.md "Keys, plans, quotas"): what the `plans` CLI command and the admin API use. */
export interface PlansRepository {
  createPlan(plan: Plan): Promise<Plan>;
  listPlans(): Promise<Plan[]>;
  getPlan(name: string): Promise<Plan | undefined>;
  /**
   * Changes a plan's quota or period (`UnknownPlanError`, `InvalidPlanError`). Keys on it
   * count against the new quota at once; a new period length starts new periods.
   */
  updatePlan(name: string, changes: PlanChanges): Promise<Plan>;
  /** Deletes a plan that no key uses, revoked ones included (`UnknownPlanError`, `PlanInUseError`). */
  deletePlan(name: string): Promise<void>;
}
