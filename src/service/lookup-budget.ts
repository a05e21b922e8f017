/**
 * The look-up budget: `concurrency` look-ups at a time, callers' and background
 * refreshes together. Refreshes only ever hold half of it: when that many are already
 * waiting or running, `tryInBackground` declines (the stale record is served, a later
 * request refreshes it), so a caller's look-up never waits behind more than half a
 * budget of refreshes, and a day's worth of expired records cannot start tens of
 * thousands of look-ups at once.
 */
import pLimit, { type LimitFunction } from "p-limit";

export const DEFAULT_LOOKUP_CONCURRENCY = 64;

export class LookupBudget {
  private readonly limit: LimitFunction;
  private readonly maxRefreshes: number;
  /** Refreshes waiting or running. */
  refreshes = 0;

  constructor(concurrency = DEFAULT_LOOKUP_CONCURRENCY) {
    this.limit = pLimit(concurrency);
    this.maxRefreshes = Math.max(1, Math.floor(concurrency / 2));
  }

  /** Runs a look-up within the budget. */
  run<T>(lookUp: () => Promise<T>): Promise<T> {
    return this.limit(lookUp);
  }

  /** Starts a background refresh unless the refresh share is taken; its promise, or undefined when declined. */
  tryInBackground<T>(refresh: () => Promise<T>): Promise<T> | undefined {
    if (this.refreshes >= this.maxRefreshes) return undefined;
    this.refreshes++;
    return refresh().finally(() => {
      this.refreshes--;
    });
  }

  get running(): number {
    return this.limit.activeCount;
  }

  get waiting(): number {
    return this.limit.pendingCount;
  }
}
