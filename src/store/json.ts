/**
 * The JSON shapes of keys, plans and usage (docs/api.md §6, §9), shared by the admin API
 * and the CLI's `--json` output, so both print the same fields in the same order.
 */
import { formatTimestamp } from "../core/record.js";
import type { ApiKey, KeyUsage, Override, Plan } from "./types.js";

export function keyJson(key: ApiKey) {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    plan: key.plan,
    created_at: formatTimestamp(key.createdAt),
    revoked_at: key.revokedAt ? formatTimestamp(key.revokedAt) : null,
  };
}

/** `quota` null: unlimited. */
export function planJson(plan: Plan) {
  return { name: plan.name, quota: plan.quota, period_days: plan.periodDays };
}

/** A key with its usage: the current period (never counted by reading it) and the stored periods, newest first. */
export function keyUsageJson({ key, current, periods }: KeyUsage) {
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

/** An operator's override on the wire and in `overrides list --json` (docs/api.md §10). */
export function overrideJson(override: Override) {
  return {
    kind: override.kind,
    value: override.value,
    action: override.action,
    note: override.note,
    created_at: formatTimestamp(override.createdAt),
  };
}
