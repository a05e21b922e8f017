/** A complete CheckRecord for tests that store or render records without running a check. */
import type { CheckRecord } from "../src/core/record.js";

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
