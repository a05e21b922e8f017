/**
 * Counts the API requests that arrive in the same turn of the event loop together: one
 * statement per key and period instead of one per request, which under load is most of
 * what a request costs the database. Every request still gets its own exact state, in
 * arrival order, and costs its own number of units; the wait is one `setImmediate`. A
 * request waits as a plain object told its state (`WaitingCount`), or as a promise.
 */
import { perTurn } from "./per-turn.js";
import { countingPeriod } from "./quota.js";
import type { AuthenticatedKey, QuotaState, WaitingCount } from "./usage-types.js";

/** Counts requests of one key made at `now`, request i costing `units[i]`; one state per request, in order. */
export type CountRequests = (
  key: AuthenticatedKey,
  now: Date,
  units: readonly number[],
) => Promise<QuotaState[]>;

/** The requests of one turn, counted together. */
export interface QuotaBatch {
  /** Counts one request with the others of this turn, and tells it its state (or the error). */
  add(request: WaitingCount): void;
  /** Counts one request of `units` units with the others of this turn. */
  count(key: AuthenticatedKey, now: Date, units: number): Promise<QuotaState>;
}

async function countGroup(countRequests: CountRequests, group: WaitingCount[]): Promise<void> {
  const [first] = group;
  if (!first) return;
  let states: QuotaState[];
  try {
    states = await countRequests(
      first.key,
      first.now,
      group.map((waiting) => waiting.units),
    );
  } catch (error) {
    for (const waiting of group) waiting.failed(error);
    return;
  }
  group.forEach((waiting, index) => {
    const state = states[index];
    if (state) waiting.counted(state);
    else waiting.failed(new Error("quota counting returned too few states"));
  });
}

export function batchQuotaCounting(countRequests: CountRequests): QuotaBatch {
  const add = perTurn<WaitingCount>((waiting) => {
    // By key, then by the start of the counting period.
    const groups = new Map<string, Map<number, WaitingCount[]>>();
    for (const entry of waiting) {
      let periods = groups.get(entry.key.id);
      if (periods === undefined) {
        periods = new Map();
        groups.set(entry.key.id, periods);
      }
      const start = countingPeriod(entry.key, entry.now).start.getTime();
      const group = periods.get(start);
      if (group) group.push(entry);
      else periods.set(start, [entry]);
    }
    for (const periods of groups.values()) {
      for (const group of periods.values()) void countGroup(countRequests, group);
    }
  });
  return {
    add,
    count: (key, now, units) =>
      new Promise<QuotaState>((resolve, reject) =>
        add({ key, now, units, counted: resolve, failed: reject }),
      ),
  };
}
