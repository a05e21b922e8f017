/** Quota periods (docs/api.md §6): consecutive windows of `periodDays`, anchored at the key's creation. */

const DAY_MS = 86_400_000;

export interface QuotaPeriod {
  start: Date;
  end: Date;
}

/** The period that contains `now`; before the key's creation, its first period. */
export function quotaPeriod(createdAt: Date, periodDays: number, now: Date): QuotaPeriod {
  const length = periodDays * DAY_MS;
  const elapsed = Math.max(0, now.getTime() - createdAt.getTime());
  const start = createdAt.getTime() + Math.floor(elapsed / length) * length;
  return { start: new Date(start), end: new Date(start + length) };
}
