/** The record field orders of docs/api.md §4 (full record, and simple record of `GET /`). */

/** The eleven `is_*` flags, in the record's order. */
export const FLAGS = [
  "is_disposable",
  "is_email_forwarder",
  "is_public_free",
  "is_public_premium",
  "is_business_provider",
  "is_isp_email",
  "is_email_api",
  "is_web_hosting_email",
  "is_self_hosted",
  "is_parked",
  "is_role_based_email",
] as const;

export type Flag = (typeof FLAGS)[number];

export const FULL_FIELDS = [
  "valid",
  "block",
  "domain",
  "base_domain",
  "text",
  "reason",
  "risk",
  ...FLAGS,
  "mx_host",
  "mx_ip",
  "mx_info",
  "mx_fallback",
  "mx_hosts",
  "mx_ips",
  "mx_priorities",
  "email_provider",
  "disposable_provider",
  "possible_typo",
  "domain_age_days",
  "domain_created_at",
  "block_status_changed_at",
];

export const SIMPLE_FIELDS = [
  "valid",
  "block",
  "disposable",
  "domain",
  "text",
  "reason",
  "risk",
  "mx_host",
  "possible_typo",
  "mx_ip",
  "mx_info",
  "last_changed_at",
];
