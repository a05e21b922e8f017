/**
 * What the service refuses, wherever it is found (mostly the store's checks inside its
 * transactions): the operator services map each to a problem code
 * (src/operator/refusal.ts), HTTP answers a suspended account's key with its problem.
 */

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
