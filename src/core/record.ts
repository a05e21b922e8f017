/** The domain check record (docs/api.md §4). Field order is the contract's order. */
export interface CheckRecord {
  valid: boolean;
  block: boolean;
  domain: string;
  base_domain: string;
  text: string;
  reason: string;
  risk: number;
  is_disposable: boolean;
  is_email_forwarder: boolean;
  is_public_free: boolean;
  is_public_premium: boolean;
  is_business_provider: boolean;
  is_isp_email: boolean;
  is_email_api: boolean;
  is_web_hosting_email: boolean;
  is_self_hosted: boolean;
  is_parked: boolean;
  is_role_based_email: boolean;
  mx_host: string;
  mx_ip: string;
  mx_info: string;
  mx_fallback: boolean;
  mx_hosts: string[];
  mx_ips: string[];
  mx_priorities: Record<string, number>;
  email_provider: string;
  disposable_provider: string | null;
  possible_typo: string[];
  domain_age_days: number | null;
  domain_created_at: string | null;
  block_status_changed_at: string;
}

/** The gateway route's shape (docs/api.md §4, simple shape), in its order. */
export interface SimpleRecord {
  valid: boolean;
  block: boolean;
  disposable: boolean;
  domain: string;
  text: string;
  reason: string;
  risk: number;
  mx_host: string;
  possible_typo: string[];
  mx_ip: string;
  mx_info: string;
  last_changed_at: string;
}

export function toSimpleRecord(record: CheckRecord): SimpleRecord {
  return {
    valid: record.valid,
    block: record.block,
    disposable: record.is_disposable,
    domain: record.domain,
    text: record.text,
    reason: record.reason,
    risk: record.risk,
    mx_host: record.mx_host,
    possible_typo: record.possible_typo,
    mx_ip: record.mx_ip,
    mx_info: record.mx_info,
    last_changed_at: record.block_status_changed_at,
  };
}

/** The last second formatted: every check of a busy second stamps the same text. */
let lastSecond = Number.NaN;
let lastText = "";

/** docs/api.md §4 timestamps: ISO 8601, seconds precision, numeric offset (`+00:00`). */
export function formatTimestamp(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== lastSecond) {
    lastText = `${date.toISOString().slice(0, 19)}+00:00`;
    lastSecond = second;
  }
  return lastText;
}
