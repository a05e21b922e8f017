/** Errors the store raises for requests it refuses; callers map them to exit codes or statuses. */

export class UnknownPlanError extends Error {
  override name = "UnknownPlanError";
  constructor(readonly plan: string) {
    super(`unknown plan "${plan}"`);
  }
}

export class PlanExistsError extends Error {
  override name = "PlanExistsError";
  constructor(readonly plan: string) {
    super(`plan "${plan}" already exists`);
  }
}

/** A plan with an unusable name, quota or period. */
export class InvalidPlanError extends Error {
  override name = "InvalidPlanError";
}
