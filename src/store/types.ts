/**
 * The one repository layer (docs/api.md §6, §8). Implemented with Kysely over SQLite
 * (better-sqlite3) and PostgreSQL (pg); same schema, same migrations.
 */
import type { CheckRecord } from "../core/record.js";

export interface Plan {
  name: string;
  quota: number;
  periodDays: number;
}

export interface ApiKey {
  id: string;
  /** First characters of the secret (e.g. `mr_3kP9`), safe to show and log. */
  prefix: string;
  name: string | null;
  plan: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** A key as authentication sees it: with its plan. */
export interface AuthenticatedKey extends ApiKey {
  quota: number;
  periodDays: number;
}

export interface QuotaState {
  /** Whether this request was counted (false: quota used up, answer 429). */
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Start of the current period (anchored at the key's creation). */
  periodStart: Date;
  /** When the current period ends and the quota resets. */
  resetAt: Date;
}

/** An API request's key and the outcome of counting it. */
export interface Authorization {
  key: AuthenticatedKey;
  quota: QuotaState;
}

export interface StoredRecord {
  record: CheckRecord;
  checkedAt: Date;
}

/** Plans (SPEC §6): what the `plans` CLI command and the tests use. */
export interface PlansRepository {
  createPlan(plan: Plan): Promise<Plan>;
  listPlans(): Promise<Plan[]>;
}

/** Keys (SPEC §6): created, listed, revoked and counted by the CLI and the server's first start. */
export interface KeysRepository {
  /** Creates a key; the secret is returned once and only its hash is stored. */
  createKey(input: {
    plan: string;
    name?: string | null;
    now: Date;
  }): Promise<{ key: ApiKey; secret: string }>;
  listKeys(): Promise<ApiKey[]>;
  revokeKey(id: string, now: Date): Promise<boolean>;
  /** Every key ever created, revoked ones included. */
  countKeys(): Promise<number>;
}

/** Quota counting (SPEC §6): the store's part of every API request. */
export interface UsageRepository {
  /**
   * The key for a secret, then `units` (default 1, a whole number ≥ 1) counted against its
   * quota, exactly across instances: all of them when that many are left, else none
   * (`quota.allowed` false). Undefined when the secret is unknown or its key revoked.
   */
  authorize(secret: string, now: Date, units?: number): Promise<Authorization | undefined>;
  /** Gives back `units` (default 1) counted in a period (used when the answer turned out a 5xx). */
  refund(key: AuthenticatedKey, periodStart: Date, units?: number): Promise<void>;
}

/** Domain records (SPEC §4, §8): the record cache's storage. */
export interface RecordsRepository {
  getRecord(domain: string): Promise<StoredRecord | undefined>;
  /**
   * Saves a fresh record. block_status_changed_at keeps its stored value when
   * `block` did not change, else becomes `checkedAt`; the saved record is returned.
   */
  saveRecord(record: CheckRecord, checkedAt: Date): Promise<CheckRecord>;
}

/** Recently checked domains (SPEC §7): domains only, never addresses. */
export interface RecentEntry {
  domain: string;
  checkedAt: Date;
}

export interface RecentRepository {
  /** Marks a batch of domains as checked (one statement); a domain keeps its newest time. */
  addRecent(entries: readonly RecentEntry[]): Promise<void>;
  /** Newest first. */
  listRecent(limit: number): Promise<RecentEntry[]>;
}

/**
 * What `openStore` returns: one repository per table group plus the database's own
 * life cycle. Consumers take only the slice they use (e.g. HTTP `usage` and `ping`, the
 * record cache `records` and `recent`, the keys command `keys` and `plans`). Every
 * method rejects with `StoreUnavailableError` when the database cannot be reached.
 */
export interface Store {
  plans: PlansRepository;
  keys: KeysRepository;
  usage: UsageRepository;
  records: RecordsRepository;
  recent: RecentRepository;
  /** Applies pending migrations; returns the names of those applied by this call. */
  migrate(): Promise<string[]>;
  /** Rejects when the database is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
