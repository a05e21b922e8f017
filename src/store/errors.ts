/** Errors the store raises for requests it refuses; callers map them to exit codes or statuses. */

export class UnknownPlanError extends Error {
  override name = "UnknownPlanError";
  constructor(readonly plan: string) {
    super(`unknown plan "${plan}"`);
  }
}

export class UnknownKeyError extends Error {
  override name = "UnknownKeyError";
  constructor(readonly id: string) {
    super(`unknown key "${id}"`);
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

/**
 * The database could not be reached or could not serve the request right now (connection
 * refused or lost, pool exhausted, SQLite file locked, read-only or unopenable). Raised in
 * one place, `translateStoreErrors` in unavailable.ts; `cause` is the driver's error.
 * HTTP answers it with 503 `database_unavailable`.
 */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  constructor(cause: unknown) {
    super("the database is unavailable", { cause });
  }
}
