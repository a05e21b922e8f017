/**
 * Counts the API requests that arrive in the same turn of the event loop together: one
 * statement per key and period instead of one per request, which under load is most of
 * what a request costs the database. Every request still gets its own exact state, in
 * arrival order, and costs its own number of units; the wait is one `setImmediate`.
 */
import { countingPeriod } from "./quota.js";
import type { AuthenticatedKey, QuotaState } from "./usage-types.js";

/** Counts requests of one key made at `now`, request i costing `units[i]`; one state per request, in order. */
export type CountRequests = (
  key: AuthenticatedKey,
  now: Date,
  units: readonly number[],
) => Promise<QuotaState[]>;
/** Counts one request of `units` units. */
export type CountRequest = (key: AuthenticatedKey, now: Date, units: number) => Promise<QuotaState>;

interface Waiting {
  key: AuthenticatedKey;
  now: Date;
  units: number;
  resolve(state: QuotaState): void;
  reject(error: unknown): void;
}

async function countGroup(countRequests: CountRequests, group: Waiting[]): Promise<void> {
  const [first] = group;
  if (!first) return;
  try {
    const states = await countRequests(
      first.key,
      first.now,
      group.map((waiting) => waiting.units),
    );
    group.forEach((waiting, index) => {
      const state = states[index];
      if (state) waiting.resolve(state);
      else waiting.reject(new Error("quota counting returned too few states"));
    });
  } catch (error) {
    for (const waiting of group) waiting.reject(error);
  }
}

export function batchQuotaCounting(countRequests: CountRequests): CountRequest {
  let waiting: Waiting[] = [];

  const flush = () => {
    const groups = new Map<string, Waiting[]>();
    for (const entry of waiting) {
      const id = `${entry.key.id} ${countingPeriod(entry.key, entry.now).start.getTime()}`;
      const group = groups.get(id);
      if (group) group.push(entry);
      else groups.set(id, [entry]);
    }
    waiting = [];
    for (const group of groups.values()) void countGroup(countRequests, group);
  };

  return (key, now, units) =>
    new Promise<QuotaState>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ key, now, units, resolve, reject });
    });
}
