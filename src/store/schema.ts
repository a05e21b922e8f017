/**
 * The tables as Kysely sees them (the accounts' in account-schema.ts); timestamps are
 * epoch milliseconds (columns.ts).
 */
import type { ColumnType } from "kysely";
import type { AccountTables } from "./account-schema.js";
import type { Millis, NullableMillis } from "./columns.js";

export interface PlansTable {
  name: string;
  /** Null: unlimited (migration 0002). */
  quota: number | null;
  period_days: number;
  created_at: Millis;
}

export interface ApiKeysTable {
  id: string;
  prefix: string;
  /** sha-256 of the secret, lower-case hex. */
  hash: string;
  name: string | null;
  plan: string;
  created_at: Millis;
  revoked_at: ColumnType<number | string | null, number | null, number | null>;
  /** 1: a publishable key (migration 0011); 0: a secret key. */
  publishable: ColumnType<number, number | undefined, number>;
  /** JSON array of the publishable key's normalised origins; null for a secret key. */
  origins: string | null;
  /** The owning account (migration 0015); null for a key the operator made. */
  account_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** A rolled key's end (migration 0015); null for any other. */
  expires_at: ColumnType<number | string | null, number | null | undefined, number | null>;
}

export interface UsageTable {
  key_id: string;
  period_start: Millis;
  used: number;
}

export interface RecordsTable {
  domain: string;
  /** The domain's facts as JSON (src/store/records-repository.ts); a whole record in rows saved before migration 0007. */
  facts: string;
  /** The block status last answered for the domain: 0 or 1. */
  block: number;
  checked_at: Millis;
  /** When the answered block status last changed. */
  block_status_changed_at: Millis;
  /** When the domain was last answered through the service, moved at most daily (migration 0010). */
  last_answered_at: ColumnType<number | string | null, number | null | undefined, number | null>;
}

/** An accepted version of a synced list (src/store/lists-repository.ts). */
export interface ListVersionsTable {
  source: string;
  /** `current` or `previous`. */
  state: string;
  hash: string;
  /** `domain<TAB>first listed (epoch ms)` lines. */
  entries: string;
  entry_count: number;
  url: string;
  accepted_at: Millis;
}

/** A synced list's last attempt. */
export interface ListSourcesTable {
  source: string;
  url: string;
  last_attempt: Millis;
  last_success: ColumnType<number | string | null, number | null, number | null>;
  last_error: string | null;
}

/** The synced sources in force for every process (src/store/lists-repository.ts): one row, id 1. */
export interface ListPolicyTable {
  id: number;
  /** Source names, one a line, sorted. */
  sources: string;
  set_at: Millis;
}

/** Named locks with an expiry (src/store/locks-repository.ts). */
export interface LocksTable {
  name: string;
  holder: string;
  expires_at: Millis;
}

/** One counter per kind of change (src/store/changes.ts). */
export interface ChangesTable {
  topic: string;
  version: ColumnType<number | string, number, number>;
}

export interface RecentTable {
  domain: string;
  checked_at: Millis;
}

export interface InfrastructureEvidenceTable {
  /** `mx_host`, `mx_ip` or `ns` (src/core/learned.ts). */
  kind: string;
  value: string;
  /** The registrable domain seen on it. */
  domain: string;
  /** `disposable`, `good` or `unknown`: the domain's listed status when last seen. */
  listed: string;
  /** For a listed disposable domain, the list entry that matched. */
  service: string | null;
  /** Fresh look-ups that saw the domain on it. */
  seen: number;
  first_seen: Millis;
  last_seen: Millis;
}

export interface OverridesTable {
  /** `domain`, `mx_host`, `mx_ip` or `ns`. */
  kind: string;
  value: string;
  /** `allow`, `deny` (domains) or `never_disposable` (infrastructure). */
  action: string;
  note: string | null;
  created_at: Millis;
}

/** Reports of wrong answers (src/store/reports-repository.ts, migration 0009). */
export interface ReportsTable {
  id: string;
  key_id: string;
  /** The reported domain (never an address). */
  domain: string;
  /** `allow` or `block`. */
  expected: string;
  note: string | null;
  /** `open`, `accepted` or `rejected`. */
  status: string;
  filed_at: Millis;
  reviewed_at: ColumnType<number | string | null, number | null, number | null>;
  review_note: string | null;
}

/** A webhook subscription (src/store/webhooks-repository.ts, migration 0010). */
export interface WebhooksTable {
  id: string;
  url: string;
  secret: string;
  /** Comma list of event types. */
  events: string;
  created_at: Millis;
}

/** An event in the outbox and its delivery state. */
export interface WebhookEventsTable {
  id: string;
  webhook_id: string;
  domain: string;
  type: string;
  body: string;
  created_at: Millis;
  /** `pending`, `delivered` or `failed`. */
  status: string;
  attempts: number;
  next_attempt_at: Millis;
  claimed_by: string | null;
  claimed_until: ColumnType<number | string | null, number | null, number | null>;
  finished_at: ColumnType<number | string | null, number | null, number | null>;
}

/** One delivery attempt of an event. */
export interface WebhookAttemptsTable {
  event_id: string;
  attempt: number;
  at: Millis;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** One change an operator made (src/store/audit-repository.ts, migration 0040). */
export interface AuditLogTable {
  id: string;
  at: Millis;
  actor: string;
  action: string;
  entity_kind: string;
  entity_id: string | null;
  /** A JSON object. */
  detail: string;
}

/** One row, written by every readiness probe (migration 0005). */
/** A PostgreSQL counting statement's receipt (migration 0026, src/store/quota-receipts.ts). */
export interface QuotaReceiptsTable {
  token: string;
  units: number;
  cancelled: ColumnType<number, number | undefined, number>;
}

export interface ReadinessProbeTable {
  id: number;
  probed_at: Millis;
}

/** Every table; the accounts' are in account-schema.ts. */
export interface Database extends AccountTables {
  plans: PlansTable;
  api_keys: ApiKeysTable;
  usage: UsageTable;
  records: RecordsTable;
  recent: RecentTable;
  infrastructure_evidence: InfrastructureEvidenceTable;
  overrides: OverridesTable;
  readiness_probe: ReadinessProbeTable;
  changes: ChangesTable;
  reports: ReportsTable;
  list_versions: ListVersionsTable;
  list_sources: ListSourcesTable;
  list_policy: ListPolicyTable;
  locks: LocksTable;
  webhooks: WebhooksTable;
  webhook_events: WebhookEventsTable;
  webhook_attempts: WebhookAttemptsTable;
  audit_log: AuditLogTable;
  daily_usage: DailyUsageTable;
  jobs: JobsTable;
  job_batches: JobBatchesTable;
  traffic_counts: TrafficCountsTable;
  quota_receipts: QuotaReceiptsTable;
}

/** The traffic per UTC day, kind and name (migration 0023, src/store/traffic-repository.ts). */
export interface TrafficCountsTable {
  day: Millis;
  kind: string;
  name: string;
  count: ColumnType<number | string, number, number>;
}

/** Requests per key and UTC day (start, epoch ms), for charts. */
export interface DailyUsageTable {
  key_id: string;
  day: Millis;
  used: number;
}

/** A list job (migration 0016, docs/jobs.md). */
export interface JobsTable {
  id: string;
  /** The key the job was uploaded with; null for an account's own, uploaded in the console (migration 0024). */
  key_id: string | null;
  status: string;
  items: number;
  done: number;
  allow_count: number;
  block_count: number;
  invalid_count: number;
  unknown_count: number;
  period_start: Millis;
  header: string;
  layout: string;
  created_at: Millis;
  started_at: NullableMillis;
  finished_at: NullableMillis;
  expires_at: NullableMillis;
  served_at: Millis;
  /** Who takes turns (migration 0018): `account:<id>`, or `key:<id>` for a key without one. */
  owner: string;
  /** Since when its batches have failed without one success (migration 0022); null while they succeed. */
  failing_since: NullableMillis;
  /** The uploaded file's name (migration 0021); null when the upload named none. */
  filename: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A batch of a job's items (migration 0018), claimed and answered whole. */
export interface JobBatchesTable {
  job_id: string;
  first_seq: number;
  size: number;
  inputs: string;
  rows: string;
  claimed_by: string | null;
  claimed_until: NullableMillis;
  /** null while pending; '' once `packed` holds the outcomes (migration 0027). */
  results: string | null;
  /** The outcomes, deflated (src/store/packed-results.ts); null while pending and in batches written before. */
  packed: Uint8Array | null;
}
