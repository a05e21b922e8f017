/** A complete CheckRecord for tests that store or render records without running a check. */
import type { CheckVerdict, DomainCheck } from "../src/core/check.js";
import type { CheckRecord } from "../src/core/record.js";
import { FIXED_ROWS, type FixedStatus, RISKY_THRESHOLD, type VerdictStatus } from "../src/core/verdict.js";

export function sampleRecord(overrides: Partial<CheckRecord> = {}): CheckRecord {
  return {
    valid: true,
    block: false,
    domain: "example.com",
    base_domain: "example.com",
    text: "Looks okay",
    reason: "Business provider",
    risk: 10,
    is_disposable: false,
    is_email_forwarder: false,
    is_public_free: false,
    is_public_premium: false,
    is_business_provider: true,
    is_isp_email: false,
    is_email_api: false,
    is_web_hosting_email: false,
    is_self_hosted: false,
    is_parked: false,
    is_role_based_email: false,
    mx_host: "mx.example.com",
    mx_ip: "192.0.2.25",
    mx_info: "Using MX pointer mx.example.com from DNS with priority: 10",
    mx_fallback: false,
    mx_hosts: ["mx.example.com"],
    mx_ips: ["192.0.2.25"],
    mx_priorities: { "mx.example.com": 10 },
    email_provider: "",
    disposable_provider: null,
    possible_typo: [],
    domain_age_days: 9000,
    domain_created_at: "1995-08-14T04:00:00+00:00",
    block_status_changed_at: "2000-01-01T00:00:00+00:00",
    ...overrides,
  };
}

/**
 * The status a fake check reports for a sample record: the fixed row its reason names,
 * else ok or risky by its risk. Only for fakes; the service stores real statuses.
 */
export function sampleStatus(record: CheckRecord): VerdictStatus {
  for (const [status, row] of Object.entries(FIXED_ROWS) as [FixedStatus, { reason: string }][]) {
    if (status === "heuristics" ? record.reason.startsWith(row.reason) : record.reason === row.reason)
      return status;
  }
  return record.risk < RISKY_THRESHOLD ? "ok" : "risky";
}

/** A fake domain check around a sample record. */
export function sampleCheck(overrides: Partial<CheckRecord> = {}): DomainCheck {
  const record = sampleRecord(overrides);
  return { record, status: sampleStatus(record), heaviest: null };
}

/** The verdict stored beside a sample record. */
export function sampleVerdict(record: CheckRecord): CheckVerdict {
  return { status: sampleStatus(record), heaviest: null };
}
