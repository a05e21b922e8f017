/**
 * The JSON shapes of keys, plans and usage (docs/api.md §6, §9), shared by the admin API
 * and the CLI's `--json` output, so both print the same fields in the same order.
 */
import { formatTimestamp } from "../core/record.js";
import type { ApiKey, KeyUsage, ListSourceState, ListVersionSummary, Override, Plan } from "./types.js";

export function keyJson(key: ApiKey) {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    plan: key.plan,
    created_at: formatTimestamp(key.createdAt),
    revoked_at: key.revokedAt ? formatTimestamp(key.revokedAt) : null,
    publishable: key.publishable,
    origins: key.origins,
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

/**
 * A synced source as `mailrisk lists status --json` and `GET /admin/lists` show it;
 * `age_seconds`: since the source last confirmed its version in force (null: never).
 */
export function listSourceJson(url: string, state: ListSourceState | undefined, now: Date) {
  const version = (v: ListVersionSummary | null | undefined) =>
    v ? { hash: v.hash, entries: v.entryCount, accepted_at: formatTimestamp(v.acceptedAt) } : null;
  const lastSuccess = state?.lastSuccess ?? null;
  return {
    url,
    last_attempt: state ? formatTimestamp(state.lastAttempt) : null,
    last_success: lastSuccess ? formatTimestamp(lastSuccess) : null,
    last_error: state?.lastError ?? null,
    age_seconds: lastSuccess ? Math.floor((now.getTime() - lastSuccess.getTime()) / 1000) : null,
    in_force: version(state?.current),
    previous: version(state?.previous),
  };
}
