/**
 * One complete record, for the API's examples and for tests that store or render records
 * without running a check: a business provider's domain, with documentation names and
 * addresses (RFC 2606, RFC 5737).
 */
import { type CheckRecord, FLAGS, type Flag } from "./record.js";

/** Every flag false, in the record's order. */
const NO_FLAGS = Object.fromEntries(FLAGS.map((flag) => [flag, false])) as Record<Flag, boolean>;

export const SAMPLE_RECORD: Readonly<CheckRecord> = {
  valid: true,
  block: false,
  domain: "example.com",
  base_domain: "example.com",
  text: "Looks okay",
  reason: "Business provider",
  risk: 10,
  ...NO_FLAGS,
  is_business_provider: true,
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
};
