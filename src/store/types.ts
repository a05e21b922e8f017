/**
 * The one repository layer (docs/api.md §6, §8). Implemented with Kysely over SQLite
 * (better-sqlite3) and PostgreSQL (pg); same schema, same migrations.
 */

import type { DomainFacts } from "../core/check.js";
import type {
  Evidence,
  InfrastructureCounts,
  InfrastructureKind,
  OverrideAction,
  OverrideKind,
} from "../core/learned.js";

export interface Plan {
  name: string;
  /** Requests per period; null: unlimited (the built-in `unlimited` plan), still counted. */
  quota: number | null;
  periodDays: number;
}

/** What `updatePlan` changes; an absent field keeps its value. */
export interface PlanChanges {
  quota?: number | null;
  periodDays?: number;
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
  /** The plan's quota; null: unlimited. */
  quota: number | null;
  periodDays: number;
}

export interface QuotaState {
  /** Whether this request was counted (false: quota used up, answer 429). */
  allowed: boolean;
  /** The plan's quota; null: unlimited. */
  limit: number | null;
  /** Requests left in the period after this one; null: unlimited. */
  remaining: number | null;
  /** Requests counted in the period, this one included. */
  used: number;
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

/** The block status last answered for a domain, and when it last changed. */
export interface BlockStatus {
  block: boolean;
  changedAt: Date;
}

/** A domain's stored facts, when they were looked up, and its answered block status. */
export interface StoredFacts extends BlockStatus {
  facts: DomainFacts;
  checkedAt: Date;
}

/** Plans (docs/api.md §6): what the `plans` CLI command and the admin API use. */
export interface PlansRepository {
  createPlan(plan: Plan): Promise<Plan>;
  listPlans(): Promise<Plan[]>;
  getPlan(name: string): Promise<Plan | undefined>;
  /**
   * Changes a plan's quota or period (`UnknownPlanError`, `InvalidPlanError`). Keys on it
   * count against the new quota at once; a new period length starts new periods.
   */
  updatePlan(name: string, changes: PlanChanges): Promise<Plan>;
}

/** Keys (docs/api.md §6): created, listed, revoked and counted by the CLI and the server's first start. */
export interface KeysRepository {
  /** Creates a key; the secret is returned once and only its hash is stored. */
  createKey(input: {
    plan: string;
    name?: string | null;
    now: Date;
  }): Promise<{ key: ApiKey; secret: string }>;
  listKeys(): Promise<ApiKey[]>;
  getKey(id: string): Promise<ApiKey | undefined>;
  revokeKey(id: string, now: Date): Promise<boolean>;
  /** Moves a key to another plan (`UnknownKeyError`, `UnknownPlanError`); revoked keys too. */
  setKeyPlan(id: string, plan: string): Promise<ApiKey>;
  /** Every key ever created, revoked ones included. */
  countKeys(): Promise<number>;
}

/** Quota counting (docs/api.md §6): the store's part of every API request. */
export interface UsageRepository {
  /**
   * The key for a secret, then `units` (default 1, a whole number ≥ 1) counted against its
   * quota, exactly across instances: all of them when that many are left, else none
   * (`quota.allowed` false). Undefined when the secret is unknown or its key revoked.
   * `units` 0 counts nothing: the key and its plan are read afresh and the state of the
   * current period is returned (`allowed` true), as `GET /v2/usage` answers it.
   */
  authorize(secret: string, now: Date, units?: number): Promise<Authorization | undefined>;
  /** Gives back `units` (default 1) counted in a period (used when the answer turned out a 5xx). */
  refund(key: AuthenticatedKey, periodStart: Date, units?: number): Promise<void>;
  /** A key's usage for the admin API and `keys show`: never counts; undefined for an unknown id. */
  keyUsage(id: string, now: Date): Promise<KeyUsage | undefined>;
}

/** A key with its plan, its current period and the periods still stored, newest first. */
export interface KeyUsage {
  key: ApiKey;
  plan: Plan;
  /** The current period, read without counting (`allowed` true). */
  current: QuotaState;
  /** Every stored period of the key (the current one included when counted), newest first. */
  periods: { periodStart: Date; used: number }[];
}

/** Domain records (docs/api.md §8): the record cache's storage of facts and answered block statuses. */
export interface RecordsRepository {
  /** The domain's facts; undefined when none are stored (or only a record saved before migration 0007). */
  getFacts(domain: string): Promise<StoredFacts | undefined>;
  /**
   * Saves a look-up's facts with the block status decided from them; the time it changed
   * keeps its stored value when `block` did not change, else becomes `checkedAt`.
   */
  saveFacts(domain: string, facts: DomainFacts, checkedAt: Date, block: boolean): Promise<BlockStatus>;
  /** Records an answered block status that differs from the stored one (its time becomes `at`). */
  noteBlock(domain: string, block: boolean, at: Date): Promise<BlockStatus>;
  /** Deletes the records of these domains (the next check of each is fresh); how many were stored. */
  purgeRecords(domains: readonly string[]): Promise<number>;
  /** Deletes every record, in short batches; how many. */
  purgeAllRecords(): Promise<number>;
}

/**
 * Pruning for the housekeeping task (docs/api.md §8): each call deletes at most `limit`
 * rows, so no statement holds a lock for long; the caller repeats until fewer come back.
 */
export interface HousekeepingRepository {
  /** Usage rows of periods that ended before `endedBefore` (by the key's current plan). */
  pruneUsage(endedBefore: Date, limit: number): Promise<number>;
  /** Records last checked before `checkedBefore`. */
  pruneRecords(checkedBefore: Date, limit: number): Promise<number>;
  /** Infrastructure evidence (one row per piece and domain) last seen before `seenBefore`. */
  pruneEvidence(seenBefore: Date, limit: number): Promise<number>;
}

/** Recently checked domains (docs/api.md §7): domains only, never addresses. */
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

/** One fresh look-up's evidence (src/core/learned.ts) and when it was made. */
export interface EvidenceEntry {
  evidence: Evidence;
  seenAt: Date;
}

/** A piece of infrastructure with the distinct domains seen on it, by listed status. */
export interface InfrastructureSummary extends InfrastructureCounts {
  kind: InfrastructureKind;
  value: string;
  /** The listed disposable domain's service seen most often on it; null when none. */
  service: string | null;
  /** Up to five listed disposable domains seen on it, most often seen first. */
  examples: string[];
}

/** Learning disposable infrastructure from traffic (docs/verdicts.md). */
export interface InfrastructureRepository {
  /**
   * Records a batch of evidence: one upsert per bounded chunk of rows, keyed by (kind,
   * value, domain); a domain seen again keeps its first time, counts one more sighting
   * and takes its newest listed status.
   */
  recordEvidence(entries: readonly EvidenceEntry[]): Promise<void>;
  /**
   * Every piece of infrastructure with at least `minDisposableDomains` distinct listed
   * disposable domains, with its counts (the thresholds decide in src/core/learned.ts).
   */
  listInfrastructure(minDisposableDomains: number): Promise<InfrastructureSummary[]>;
  /** The registrable domains seen on a piece of infrastructure (at most `limit`). */
  domainsOn(kind: InfrastructureKind, value: string, limit: number): Promise<string[]>;
}

export interface Override {
  kind: OverrideKind;
  value: string;
  action: OverrideAction;
  note: string | null;
  createdAt: Date;
}

/** The operator's overrides (docs/api.md §10): a domain allowed or denied, infrastructure never disposable. */
export interface OverridesRepository {
  /** Sets (or replaces) the override of a domain or piece of infrastructure. */
  setOverride(override: Override): Promise<Override>;
  /** Whether there was one to remove. */
  removeOverride(kind: OverrideKind, value: string): Promise<boolean>;
  listOverrides(): Promise<Override[]>;
}

/** The kinds of change every server must take at once (src/store/changes.ts). */
export const CHANGE_TOPICS = ["keys", "overrides", "records"] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

/** The change signal: a counter per topic, raised by the store after each change of that kind. */
export interface ChangesRepository {
  raise(topic: ChangeTopic): Promise<void>;
  /** Every topic's counter (a topic never raised is absent). */
  versions(): Promise<Map<string, number>>;
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
  housekeeping: HousekeepingRepository;
  infrastructure: InfrastructureRepository;
  overrides: OverridesRepository;
  changes: ChangesRepository;
  /** Applies pending migrations; returns the names of those applied by this call. */
  migrate(): Promise<string[]>;
  /** Rejects when the database is unreachable or refuses writes (one tiny write to `readiness_probe`). */
  ping(): Promise<void>;
  /**
   * Forgets the keys this process remembers (usage.ts): the next request of each reads its
   * key and plan again. Called when the change signal says keys or plans changed.
   */
  forgetKeys(): void;
  close(): Promise<void>;
}
