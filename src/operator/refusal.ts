/**
 * What the operator's services refuse, one model for every surface: a problem code
 * (docs/api.md "Errors") and what is wrong. The admin API answers it as problem JSON;
 * the CLI exits 2 with the usage for a 400, else 1.
 */

import {
  AccountExistsError,
  AccountListFullError,
  InvalidOriginsError,
  InvalidPlanError,
  PlanExistsError,
  PlanInUseError,
  UnknownAccountError,
  UnknownKeyError,
  UnknownPlanError,
} from "../core/refusals.js";
import { ReportProblem } from "../service/checking/report-filing.js";
import { UnknownSourceError } from "../service/lists/list-sync.js";
import { PROBLEM_STATUS, type ProblemCode } from "../service/shared/problem-codes.js";

export class Refusal extends Error {
  override name = "Refusal";
  constructor(
    readonly code: ProblemCode,
    message: string,
  ) {
    super(message);
  }

  /** Whether the request itself is wrong (a 400), rather than the state it meets. */
  get badInput(): boolean {
    return PROBLEM_STATUS[this.code] === 400;
  }
}

/** How many of a list to show: `fallback` when not given, else a whole number from 1 to `max` (`invalid_body`). */
export function shownLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > max)
    throw new Refusal("invalid_body", `limit is a whole number from 1 to ${max}`);
  return limit;
}

/** The number a limit given as text holds (a query parameter, a CLI option), or undefined: `shownLimit` bounds it. */
export function limitOf(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}

const STORE_REFUSALS: [new (...args: never[]) => Error, ProblemCode][] = [
  [UnknownKeyError, "unknown_key"],
  [UnknownPlanError, "unknown_plan"],
  [PlanExistsError, "plan_exists"],
  [PlanInUseError, "plan_in_use"],
  [InvalidPlanError, "invalid_plan"],
  [InvalidOriginsError, "invalid_origins"],
  [UnknownSourceError, "unknown_source"],
  [UnknownAccountError, "unknown_account"],
  [AccountExistsError, "account_exists"],
  [AccountListFullError, "too_many_entries"],
];

/** The refusal an error is (the store's and the reports' refusals included), or undefined for a failure. */
export function refusalOf(error: unknown): Refusal | undefined {
  if (error instanceof Refusal) return error;
  if (error instanceof ReportProblem) return new Refusal(error.code, error.message);
  const known = STORE_REFUSALS.find(([type]) => error instanceof type);
  return known && new Refusal(known[1], (error as Error).message);
}
