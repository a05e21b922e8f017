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

/** Origins that a key cannot have: not exact origins, none for a publishable key, any for a secret key. */
export class InvalidOriginsError extends Error {
  override name = "InvalidOriginsError";
}

/** A plan with an unusable name, quota or period. */
export class InvalidPlanError extends Error {
  override name = "InvalidPlanError";
}

/** A plan that keys still use cannot be deleted; `keys` counts them, revoked ones included. */
export class PlanInUseError extends Error {
  override name = "PlanInUseError";
  constructor(
    readonly plan: string,
    readonly keys: number,
  ) {
    super(`plan "${plan}" is used by ${keys} key${keys === 1 ? "" : "s"} (revoked ones included)`);
  }
}

/** What a driver's error says, in one line: its message, else its code (an AggregateError's first message). */
export function driverMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== "") return error.message;
  const inner = (error as { errors?: unknown[] }).errors?.[0];
  if (inner instanceof Error && inner.message !== "") return inner.message;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : error.name;
}

/**
 * The database could not be reached or could not serve the request right now (connection
 * refused or lost, host unknown, authentication refused, pool exhausted, SQLite file
 * locked, read-only or unopenable). Raised in one place, `translateStoreErrors` in
 * unavailable.ts; `cause` is the driver's error (pino's logs print its message after
 * this one's), `detail` the message with the cause, for a person (never the DATABASE_URL,
 * which may hold a password). HTTP answers it with 503 `database_unavailable`.
 */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  constructor(cause: unknown) {
    super("the database is unavailable", { cause });
  }

  /** `the database is unavailable: connect ECONNREFUSED 127.0.0.1:5432`. */
  get detail(): string {
    return `${this.message}: ${driverMessage(this.cause)}`;
  }
}

/** A key of a suspended account (docs/accounts.md): answered 401 `account_suspended`, nothing counted. */
export class AccountSuspendedError extends Error {
  override name = "AccountSuspendedError";
  constructor() {
    super("The account this API key belongs to is suspended.");
  }
}

export class UnknownAccountError extends Error {
  override name = "UnknownAccountError";
  constructor(readonly account: string) {
    super(`unknown account "${account}"`);
  }
}

export class AccountExistsError extends Error {
  override name = "AccountExistsError";
  constructor(readonly email: string) {
    super(`an account for ${email} exists already`);
  }
}

/** An account's list holds at most `max` entries (docs/accounts.md "The account's list"): nothing was changed. */
export class AccountListFullError extends Error {
  override name = "AccountListFullError";
  constructor(readonly max: number) {
    super(`an account's list holds at most ${max} entries; remove some first`);
  }
}
