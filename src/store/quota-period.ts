/** Quota periods (docs/api.md "Keys, plans, quotas"): consecutive windows of `periodDays`, anchored at the key's creation. */
import { DAY_MS } from "../core/time.js";

export interface QuotaPeriod {
  start: Date;
  end: Date;
}

/** The start (ms) of the period that contains `now`; before the key's creation, of its first period. */
function quotaPeriodStart(createdAt: Date, periodDays: number, now: Date): number {
  const length = periodDays * DAY_MS;
  const elapsed = Math.max(0, now.getTime() - createdAt.getTime());
  return createdAt.getTime() + Math.floor(elapsed / length) * length;
}

/** The period that contains `now`; before the key's creation, its first period. */
export function quotaPeriod(createdAt: Date, periodDays: number, now: Date): QuotaPeriod {
  const start = quotaPeriodStart(createdAt, periodDays, now);
  return { start: new Date(start), end: new Date(start + periodDays * DAY_MS) };
}
