/**
 * What a plan may be (docs/api.md "Keys, plans, quotas"): its name's form, its quota's
 * bound (the 32-bit integer columns' largest value, which an unlimited plan's count stops
 * at and its rate-limit headers report) and its period's length.
 */
import { InvalidPlanError } from "./refusals.js";

const PLAN_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** The quota and usage columns are 32-bit integers; an unlimited plan's count stops here too. */
export const MAX_QUOTA = 2_147_483_647;
const MAX_PERIOD_DAYS = 3650;

export function validatePlanName(name: string): void {
  if (!PLAN_NAME.test(name)) {
    throw new InvalidPlanError(
      `plan name "${name}" must be 1–64 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
}

export function validateQuota(quota: number | null): void {
  if (quota !== null && (!Number.isInteger(quota) || quota < 0 || quota > MAX_QUOTA)) {
    throw new InvalidPlanError(`quota must be a whole number from 0 to ${MAX_QUOTA}, or unlimited`);
  }
}

export function validatePeriodDays(periodDays: number): void {
  if (!Number.isInteger(periodDays) || periodDays < 1 || periodDays > MAX_PERIOD_DAYS) {
    throw new InvalidPlanError(`period must be a whole number of days from 1 to ${MAX_PERIOD_DAYS}`);
  }
}
