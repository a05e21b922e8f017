/** Sample records for tests that render records without running a check (fake checkers). */
import type { CheckRecord } from "../src/core/record.js";
import { SAMPLE_RECORD } from "../src/core/record-example.js";
import { FIXED_ROWS, type FixedStatus, RISKY_THRESHOLD, type VerdictStatus } from "../src/core/verdict.js";

/** A copy of SAMPLE_RECORD (src/core/record-example.ts) with `overrides`; no two share an array. */
export function sampleRecord(overrides: Partial<CheckRecord> = {}): CheckRecord {
  return { ...structuredClone(SAMPLE_RECORD), ...overrides };
}

/**
 * The status a fake check reports for a sample record: the fixed row its reason names,
 * else ok or risky by its risk. Only for fakes; the service decides real statuses.
 */
export function sampleStatus(record: CheckRecord): VerdictStatus {
  for (const [status, row] of Object.entries(FIXED_ROWS) as [FixedStatus, { reason: string }][]) {
    if (status === "heuristics" ? record.reason.startsWith(row.reason) : record.reason === row.reason)
      return status;
  }
  return record.risk < RISKY_THRESHOLD ? "ok" : "risky";
}
