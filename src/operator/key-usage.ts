/** A key's usage (docs/api.md "Keys, plans, quotas"): the current period, never counted, and the past. */
import { type Static, Type } from "typebox";
import { formatTimestamp } from "../core/record.js";
import { nullable, Timestamp } from "../core/schema-types.js";
import type { Store } from "../store/index.js";
import { KeySchema, keyJson } from "./keys.js";
import { Quota } from "./plans.js";
import { Refusal } from "./refusal.js";

export const KeyWithUsageSchema = Type.Object({
  ...KeySchema.properties,
  usage: Type.Object({
    limit: Quota,
    used: Type.Integer({ description: "Requests counted in the current period." }),
    remaining: nullable<number>("integer", { description: "Requests left this period; null: unlimited." }),
    period_start: Timestamp,
    reset_at: Timestamp,
    periods: Type.Array(Type.Object({ period_start: Timestamp, used: Type.Integer() }), {
      description: "Every stored period, newest first; housekeeping prunes old ones.",
    }),
  }),
});
export type KeyWithUsage = Static<typeof KeyWithUsageSchema>;

/** A key with its usage; `unknown_key` for an id no key has. */
export async function keyUsage(store: Pick<Store, "usage">, id: string, now: Date): Promise<KeyWithUsage> {
  const found = await store.usage.keyUsage(id, now);
  if (!found) throw new Refusal("unknown_key", `unknown key "${id}"`);
  const { key, current, periods } = found;
  return {
    ...keyJson(key),
    usage: {
      limit: current.limit,
      used: current.used,
      remaining: current.remaining,
      period_start: formatTimestamp(current.periodStart),
      reset_at: formatTimestamp(current.resetAt),
      periods: periods.map((period) => ({
        period_start: formatTimestamp(period.periodStart),
        used: period.used,
      })),
    },
  };
}
