/**
 * The one repository layer (SPEC §6, §8). Implemented with Kysely over SQLite
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

export interface Store {
  /** Applies pending migrations; returns the names of those applied by this call. */
  migrate(): Promise<string[]>;
  /** Rejects when the database is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;

  createPlan(plan: Plan): Promise<Plan>;
  listPlans(): Promise<Plan[]>;

  /** Creates a key; the secret is returned once and only its hash is stored. */
  createKey(input: {
    plan: string;
    name?: string | null;
    now: Date;
  }): Promise<{ key: ApiKey; secret: string }>;
  listKeys(): Promise<ApiKey[]>;
  revokeKey(id: string, now: Date): Promise<boolean>;
  countKeys(): Promise<number>;
  /** Key and plan for a secret; undefined when unknown or revoked. */
  authenticate(secret: string): Promise<AuthenticatedKey | undefined>;

  /**
   * What every API request does: the key for the secret, then one request counted
   * (exact across instances). Undefined when the secret is unknown or its key revoked.
   */
  authorize(secret: string, now: Date): Promise<Authorization | undefined>;
  /** Counts one request atomically when quota is left and the key is not revoked (exact across instances). */
  consumeQuota(key: AuthenticatedKey, now: Date): Promise<QuotaState>;
  /** Gives back one counted request (used when the answer turned out a 5xx). */
  refundQuota(key: AuthenticatedKey, periodStart: Date): Promise<void>;

  getRecord(domain: string): Promise<StoredRecord | undefined>;
  /**
   * Saves a fresh record. block_status_changed_at keeps its stored value when
   * `block` did not change, else becomes `checkedAt`; the saved record is returned.
   */
  saveRecord(record: CheckRecord, checkedAt: Date): Promise<CheckRecord>;

  /** Recently checked domains (domains only, never addresses), newest first. */
  addRecent(domain: string, at: Date): Promise<void>;
  listRecent(limit: number): Promise<{ domain: string; checkedAt: Date }[]>;
}
