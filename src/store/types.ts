/**
 * The one repository layer (docs/api.md "Keys, plans, quotas", "Storage and caching"). Implemented with Kysely over SQLite
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
  /** A publishable (`mrp_`) key: only the checking routes, only from its origins (docs/security.md). */
  publishable: boolean;
  /** The web origins a publishable key may be used from, normalised; empty for a secret key. */
  origins: string[];
  /** The account that owns the key (docs/accounts.md); null for a key the operator made. */
  accountId: string | null;
  /** A rolled key stops working then (its successor took its place); null: only revocation ends it. */
  expiresAt: Date | null;
}

/** A key as authentication sees it: with its plan, and its account's count and state when it has one. */
export interface AuthenticatedKey extends ApiKey {
  /** The plan's quota; null: unlimited. */
  quota: number | null;
  periodDays: number;
  /** The account whose one count the key draws from (period anchored at its creation); null: the key's own. */
  account: { id: string; createdAt: Date; suspended: boolean } | null;
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

/** A recorded block status, and whether this call recorded the flip (the first writer across instances). */
export interface NotedBlock extends BlockStatus {
  flipped: boolean;
}

/** What a flip tells the webhooks (docs/webhooks.md): events are written with the flip, when the domain is watched. */
export interface FlipNotice {
  /** The domain is watched when it was answered at or after this time. */
  watchedSince: Date;
  /** The record answered with the new status (JSON), and its reason. */
  record: { reason: string } & Record<string, unknown>;
  /**
   * The policy version the new status was decided with (`policyVersion` of the change
   * signal's counters this process has applied): the flip is recorded only while the
   * store's still says the same, so a process that has not yet reloaded a change of
   * policy never writes its old answer back. Absent: recorded whatever the counters say.
   */
  policyVersion?: number;
}

/** A watched domain's stored facts and answered block status, for deciding it again. */
export interface WatchedFacts {
  domain: string;
  /** Null for a row saved before migration 0007 (nothing to decide from). */
  facts: DomainFacts | null;
  block: boolean;
}

/** A domain's stored facts, when they were looked up, and its answered block status. */
export interface StoredFacts extends BlockStatus {
  facts: DomainFacts;
  checkedAt: Date;
}

export type AccountRole = "member" | "operator";
export type AccountState = "active" | "suspended";

/** A person who logs in (docs/accounts.md). */
export interface Account {
  id: string;
  /** Lower-case; the login. */
  email: string;
  role: AccountRole;
  /** The plan all its keys count against, together. */
  plan: string;
  state: AccountState;
  createdAt: Date;
}

/** An account as logging in sees it. */
export interface AccountLogin extends Account {
  passwordHash: string | null;
}

/** A pending sign-up, reset or invitation: a mailed code (tries counted) or a one-time link. */
export interface AccountTicket {
  /** HMAC of the link's token, or of the kind and email for a code. */
  hash: string;
  kind: "signup" | "reset" | "invite";
  email: string;
  /** HMAC of a mailed code; null for a link. */
  codeHash: string | null;
  triesLeft: number;
  expiresAt: Date;
  /** What an invited account gets: plan and role. */
  payload: { plan?: string; role?: AccountRole };
}

/** The password a browser chose at sign-up, waiting for the mailed code. */
export interface PendingSignup {
  /** HMAC of the email and the browser's form token. */
  hash: string;
  email: string;
  passwordHash: string;
  plan: string;
  expiresAt: Date;
}

/** A live session: its account, the CSRF token of its forms and when it began. */
export interface FoundSession {
  account: Account;
  csrf: string;
  createdAt: Date;
}

/** Accounts, their sessions and tickets (docs/accounts.md). */
export interface AccountsRepository {
  /**
   * Creates an account and its first secret key (`AccountExistsError` when the email or
   * the mailbox has one, `UnknownPlanError`).
   */
  createAccount(input: {
    email: string;
    passwordHash: string | null;
    role: AccountRole;
    plan: string;
    now: Date;
  }): Promise<{ account: Account; key: ApiKey; secret: string }>;
  /** Newest first, at most `limit`; with `search`, those whose email contains it. */
  listAccounts(filter: { search: string | null; limit: number }): Promise<Account[]>;
  getAccount(id: string): Promise<Account | undefined>;
  findLogin(email: string): Promise<AccountLogin | undefined>;
  /** The account of a mailbox (src/core/mailbox.ts), whatever email it signed up with. */
  findMailbox(mailbox: string): Promise<Account | undefined>;
  /** Suspends or resumes (`UnknownAccountError`); a suspension ends its sessions. */
  setState(id: string, state: AccountState): Promise<Account>;
  /** Moves the account and its keys to a plan (`UnknownPlanError`, `UnknownAccountError`). */
  setPlan(id: string, plan: string): Promise<Account>;
  /** Deletes the account with its keys, sessions and counts; false when unknown. */
  deleteAccount(id: string): Promise<boolean>;
  setPassword(id: string, passwordHash: string): Promise<void>;
  createSession(input: { hash: string; accountId: string; csrf: string; now: Date }): Promise<void>;
  /**
   * The session while seen after `idleSince` and begun after `bornSince` (and marks it
   * seen at `now`).
   */
  findSession(hash: string, now: Date, idleSince: Date, bornSince: Date): Promise<FoundSession | undefined>;
  deleteSession(hash: string): Promise<void>;
  /** Ends every session of the account ("log out everywhere"), but the one of `except`; how many. */
  deleteSessions(accountId: string, except?: string): Promise<number>;
  /** The secret the server made for itself at first start under `name` (never logged). */
  serverSecret(name: string): Promise<string>;
  /** Saves a ticket unless a live one of its hash exists; whether it was saved. */
  issueTicket(ticket: AccountTicket, now: Date): Promise<boolean>;
  /** Forgets a ticket (one issued but never mailed). */
  deleteTicket(hash: string): Promise<void>;
  /** The live ticket of a hash, left as it is; undefined when unknown, used or expired. */
  peekTicket(hash: string, now: Date): Promise<AccountTicket | undefined>;
  /**
   * Judges a code in one statement: spends a try of the live ticket (none left: not
   * judged, undefined) and, for the right code, all of them; `matched` says which.
   */
  spendCode(
    hash: string,
    codeHash: string,
    now: Date,
  ): Promise<{ ticket: AccountTicket; matched: boolean } | undefined>;
  /** Uses a link's ticket up in one statement: the ticket for the one caller that got it. */
  spendLink(hash: string, now: Date): Promise<AccountTicket | undefined>;
  /** Saves what a browser chose at sign-up, replacing that browser's earlier choice. */
  savePendingSignup(pending: PendingSignup): Promise<void>;
  /** Takes (deletes and returns) a live pending sign-up in one statement. */
  takePendingSignup(hash: string, now: Date): Promise<PendingSignup | undefined>;
  /**
   * Counts a mail (a code when `code`) to a mailbox in its hour (which began after `since`,
   * or begins now); the mails and codes of the hour with this one, in one statement.
   */
  countMail(
    mailbox: string,
    now: Date,
    since: Date,
    code: boolean,
  ): Promise<{ mails: number; codes: number }>;
}

/** How a counter of failed log-ins counts (docs/security.md "Log-in throttling"). */
export interface ThrottleRule {
  /** A count older than this starts again at one. */
  windowMs: number;
  /** The try that brings the count to this makes the next ones wait; null: never. */
  lockAt: number | null;
  /** The wait: `stepMs` times the tries at or over `lockAt`, at most `maxLockMs`. */
  stepMs: number;
  maxLockMs: number;
  /** Whether the count starts again at one once a wait is over (else it goes on growing). */
  restartAfterLock: boolean;
}

/** A try counted, or refused because its key waits until `lockedUntil`. */
export type ThrottleTry = { counted: true; failures: number } | { counted: false; lockedUntil: Date };

/** Failed log-ins by key, each counted in one statement (docs/security.md "Log-in throttling"). */
export interface LoginThrottleRepository {
  /** Counts a try unless the key waits now (then `counted: false`); exact under concurrency. */
  countTry(key: string, rule: ThrottleRule, now: Date): Promise<ThrottleTry>;
  /** Until when the key waits; null when it does not. */
  lockedUntil(key: string, now: Date): Promise<Date | null>;
  /** The count of a key whose window started after `since`; 0 when none. */
  failures(key: string, since: Date): Promise<number>;
  /** Gives one try back (a right password): the count less one, its wait kept. */
  giveBack(key: string): Promise<void>;
  /** Forgets a key's count and wait. */
  clear(key: string): Promise<void>;
}

/** A log-in waiting for its code (docs/accounts.md "Two-factor log-in"). */
export interface PendingLogin {
  hash: string;
  accountId: string;
  via: "totp" | "mail";
  codeHash: string | null;
  expiresAt: Date;
}

/** The accounts' TOTP secrets, recovery codes and pending log-ins. */
export interface TwoFactorRepository {
  /** The account's secret (base32) when two-factor is on, and the last time step taken. */
  findSecret(accountId: string): Promise<{ secret: string; lastStep: number | null } | undefined>;
  /** Keeps a new secret waiting for its first code until `expiresAt` (replacing a waiting one). */
  savePending(accountId: string, secret: string, expiresAt: Date): Promise<void>;
  /** The waiting secret while live. */
  findPending(accountId: string, now: Date): Promise<string | undefined>;
  /**
   * Turns two-factor on with the waiting secret `secret` (still waiting and live) and these
   * recovery code hashes; false when it was not waiting.
   */
  turnOn(accountId: string, input: { secret: string; recoveryHashes: string[]; now: Date }): Promise<boolean>;
  /** Turns it off: secret, waiting secret and recovery codes gone; false when it was off. */
  turnOff(accountId: string): Promise<boolean>;
  /** Takes time step `step` of the account's secret, in one statement: false when it or a later one was taken. */
  takeStep(accountId: string, step: number): Promise<boolean>;
  /** Spends a recovery code in one statement: false when it is unknown or spent. */
  spendRecoveryCode(accountId: string, hash: string): Promise<boolean>;
  savePendingLogin(login: PendingLogin & { triesLeft: number }): Promise<void>;
  /** The live pending log-in of a hash. */
  findPendingLogin(hash: string, now: Date): Promise<PendingLogin | undefined>;
  /** Spends one try of a pending log-in in one statement; false when none was left (it is gone then). */
  spendLoginTry(hash: string, now: Date): Promise<boolean>;
  /** Ends a pending log-in in one statement; false when it was gone already. */
  endPendingLogin(hash: string): Promise<boolean>;
}

/** Plans (docs/api.md "Keys, plans, quotas"): what the `plans` CLI command and the admin API use. */
export interface PlansRepository {
  createPlan(plan: Plan): Promise<Plan>;
  listPlans(): Promise<Plan[]>;
  getPlan(name: string): Promise<Plan | undefined>;
  /**
   * Changes a plan's quota or period (`UnknownPlanError`, `InvalidPlanError`). Keys on it
   * count against the new quota at once; a new period length starts new periods.
   */
  updatePlan(name: string, changes: PlanChanges): Promise<Plan>;
  /** Deletes a plan that no key uses, revoked ones included (`UnknownPlanError`, `PlanInUseError`). */
  deletePlan(name: string): Promise<void>;
}

/** Keys (docs/api.md "Keys, plans, quotas"): created, listed, revoked and counted by the CLI and the server's first start. */
export interface KeysRepository {
  /** Creates a key; the secret is returned once and only its hash is stored. */
  createKey(input: {
    plan: string;
    name?: string | null;
    now: Date;
    /** A publishable key with at least one origin; a secret key takes none (`InvalidOriginsError`). */
    publishable?: boolean;
    origins?: readonly string[];
    /** The owning account: the key draws from its count. */
    accountId?: string | null;
  }): Promise<{ key: ApiKey; secret: string }>;
  listKeys(): Promise<ApiKey[]>;
  /** The keys of one account, revoked ones included, oldest first. */
  accountKeys(accountId: string): Promise<ApiKey[]>;
  getKey(id: string): Promise<ApiKey | undefined>;
  revokeKey(id: string, now: Date): Promise<boolean>;
  /** A new key in a live one's place; the old one works until `until` (`UnknownKeyError`, also for a rolled one). */
  rollKey(id: string, now: Date, until: Date): Promise<{ key: ApiKey; secret: string }>;
  /** Moves a key to another plan (`UnknownKeyError`, `UnknownPlanError`); revoked keys too. */
  setKeyPlan(id: string, plan: string): Promise<ApiKey>;
  /** Replaces a publishable key's origins (`UnknownKeyError`, `InvalidOriginsError`, also for a secret key). */
  setKeyOrigins(id: string, origins: readonly string[]): Promise<ApiKey>;
  /** Every key ever created, revoked ones included. */
  countKeys(): Promise<number>;
}

/** Quota counting (docs/api.md "Keys, plans, quotas"): the store's part of every API request. */
export interface UsageRepository {
  /**
   * The key for a secret, then `units` (default 1, a whole number ≥ 1) counted against its
   * quota, exactly across instances: all of them when that many are left, else none
   * (`quota.allowed` false). Undefined when the secret is unknown or its key revoked.
   * `units` 0 counts nothing: the key and its plan are read afresh and the state of the
   * current period is returned (`allowed` true), as `GET /v2/usage` answers it.
   */
  authorize(secret: string, now: Date, units?: number): Promise<Authorization | undefined>;
  /**
   * As `authorize`, for a live key named by its id (the console's list uploads, which
   * hold no secret); the key is read afresh. Undefined when unknown, revoked or past its end.
   */
  authorizeKey(id: string, now: Date, units: number): Promise<Authorization | undefined>;
  /**
   * As `authorizeKey`, on an account's own count with no key (the console's list
   * uploads): the state after counting, undefined for an unknown account; a suspended one
   * throws `AccountSuspendedError`.
   */
  authorizeAccount(id: string, now: Date, units: number): Promise<QuotaState | undefined>;
  /**
   * The live key for a secret, counting nothing (a publishable key's origins are checked
   * before its request counts); remembered like `authorize`'s keys.
   */
  findKey(secret: string, now: Date): Promise<AuthenticatedKey | undefined>;
  /** Whether some live publishable key lists this normalised origin; remembered like the keys. */
  isPublishableOrigin(origin: string, now: Date): Promise<boolean>;
  /**
   * Gives back `units` (default 1) counted in a period (used when the answer turned out a
   * 5xx); the requests per day lose them on the day of `now` (default: the present).
   */
  refund(key: AuthenticatedKey, periodStart: Date, units?: number, now?: Date): Promise<void>;
  /** Writes the requests per key and day counted since the last call (charts only; the quota count is exact already). */
  flushDailyUsage(): Promise<void>;
  /** Requests per key and UTC day of these keys, from `since` on; written by `flushDailyUsage`. */
  dailyUsage(keyIds: readonly string[], since: Date): Promise<{ keyId: string; day: Date; used: number }[]>;
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

/** Domain records (docs/api.md "Storage and caching"): the record cache's storage of facts and answered block statuses. */
export interface RecordsRepository {
  /** The domain's facts; undefined when none are stored (or only a record saved before migration 0007). */
  getFacts(domain: string): Promise<StoredFacts | undefined>;
  /**
   * Saves a look-up's facts. A new domain's row takes `block` (changed at `checkedAt`); a
   * stored domain keeps its block status: a flip is recorded by `noteBlock` only.
   */
  saveFacts(domain: string, facts: DomainFacts, checkedAt: Date, block: boolean): Promise<BlockStatus>;
  /**
   * Records an answered block status that differs from the stored one (its time becomes
   * `at`); with a notice, the webhook events of the flip are written with it, in one
   * transaction, when the domain is watched.
   */
  noteBlock(domain: string, block: boolean, at: Date, notice?: FlipNotice): Promise<NotedBlock>;
  /** Marks domains answered at `at`, those not marked since `olderThan` only (one statement). */
  markAnswered(domains: readonly string[], at: Date, olderThan: Date): Promise<void>;
  /** Watched domains (answered since `since`) with facts, after `after` in domain order, at most `limit`. */
  watchedFacts(since: Date, after: string | null, limit: number): Promise<WatchedFacts[]>;
  /** Deletes the records of these domains (the next check of each is fresh); how many were stored. */
  purgeRecords(domains: readonly string[]): Promise<number>;
  /** Deletes every record, in short batches; how many. */
  purgeAllRecords(): Promise<number>;
}

/**
 * Pruning for the housekeeping task (docs/api.md "Storage and caching"): each call deletes at most `limit`
 * rows, so no statement holds a lock for long; the caller repeats until fewer come back.
 */
export interface HousekeepingRepository {
  /** Usage rows of periods that ended before `endedBefore` (by the key's current plan). */
  pruneUsage(endedBefore: Date, limit: number): Promise<number>;
  /** Records last checked before `checkedBefore`. */
  pruneRecords(checkedBefore: Date, limit: number): Promise<number>;
  /** Infrastructure evidence (one row per piece and domain) last seen before `seenBefore`. */
  pruneEvidence(seenBefore: Date, limit: number): Promise<number>;
  /** Webhook events delivered or given up before `finishedBefore`, with their attempts. */
  pruneWebhookEvents(finishedBefore: Date, limit: number): Promise<number>;
  /**
   * Sessions unused since `idleSince`, codes and links expired at `now`, old failed
   * log-ins, and requests per day and account counts older than `countedBefore`; at most
   * `limit` rows of each table.
   */
  pruneAccountLeftovers(
    cutoffs: { now: Date; idleSince: Date; countedBefore: Date },
    limit: number,
  ): Promise<number>;
  /** Batches of list jobs past their `expires_at`, or of uploads abandoned since before `abandonedBefore` (then the jobs). */
  pruneJobs(now: Date, abandonedBefore: Date, limit: number): Promise<number>;
  /** Traffic counters of days before `before` (docs/console.md "Traffic"). */
  pruneTraffic(before: Date, limit: number): Promise<number>;
}

/**
 * What a traffic counter counts (docs/console.md "Traffic"): checks by `surface` (api,
 * bulk, jobs, pages), blocks by `block` reason, the disposable `provider` seen, the
 * blocked `domain`.
 */
export type TrafficKind = "surface" | "block" | "provider" | "domain";

/** A count of one UTC day (`day`: its start), kind and name. */
export interface TrafficCount {
  day: Date;
  kind: TrafficKind;
  name: string;
  count: number;
}

/** A key with the requests it used since a day. */
export interface KeyTraffic {
  keyId: string;
  prefix: string;
  name: string | null;
  accountId: string | null;
  revoked: boolean;
  used: number;
}

export interface TrafficRepository {
  /** Adds counts to the day's counters: additive, so every instance adds its own. */
  addCounts(counts: readonly TrafficCount[]): Promise<void>;
  /** The counters of these kinds from `since` (a day's start) on, by day. */
  dailyCounts(kinds: readonly TrafficKind[], since: Date): Promise<TrafficCount[]>;
  /** The names of a kind counted most from `since` on, most first (ties by name). */
  topNames(kind: TrafficKind, since: Date, limit: number): Promise<{ name: string; count: number }[]>;
  /** The keys whose requests per day add up to the most from `since` on (refunds subtracted). */
  topKeys(since: Date, limit: number): Promise<KeyTraffic[]>;
  /** The accounts whose keys' requests per day add up to the most from `since` on. */
  topAccounts(since: Date, limit: number): Promise<{ accountId: string; email: string; used: number }[]>;
}

/** Recently checked domains (docs/api.md "Result pages"): domains only, never addresses. */
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

/** The operator's overrides (docs/api.md "Administration"): a domain allowed or denied, infrastructure never disposable. */
export interface OverridesRepository {
  /** Sets (or replaces) the override of a domain or piece of infrastructure. */
  setOverride(override: Override): Promise<Override>;
  /** Whether there was one to remove. */
  removeOverride(kind: OverrideKind, value: string): Promise<boolean>;
  listOverrides(): Promise<Override[]>;
}

/** What an account's list says of a domain (docs/accounts.md "The account's list"). */
export type AccountListAction = "block" | "allow";

export interface AccountListEntry {
  /** Normalised, as the operator's domain overrides are. */
  domain: string;
  action: AccountListAction;
  createdAt: Date;
}

/** Each account's own allow and block list; every change raises the account's list version. */
export interface AccountListsRepository {
  /** The account's entries by domain, and the version of its list they are (0: never changed). */
  listEntries(accountId: string): Promise<{ version: number; entries: AccountListEntry[] }>;
  /**
   * One page of the account's entries by domain: those whose domain contains `search`
   * (every one: null), from `offset`, at most `limit`; with how many the list holds and how many match.
   */
  findEntries(
    accountId: string,
    filter: { search: string | null; offset: number; limit: number },
  ): Promise<{ total: number; matching: number; entries: AccountListEntry[] }>;
  /** How many entries the account's list holds. */
  countEntries(accountId: string): Promise<number>;
  /** Adds an entry or replaces the action of the domain's; `AccountListFullError` for a new one beyond `maxEntries`. */
  setEntry(accountId: string, entry: AccountListEntry, maxEntries: number): Promise<AccountListEntry>;
  /** Whether there was one to remove. */
  removeEntry(accountId: string, domain: string): Promise<boolean>;
  /** Adds or replaces every entry at once, or none (`AccountListFullError` beyond `maxEntries`); how many were given. */
  importEntries(accountId: string, entries: readonly AccountListEntry[], maxEntries: number): Promise<number>;
  /** The version of each of these accounts' lists; an account whose list never changed is absent. */
  versions(accountIds: readonly string[]): Promise<Map<string, number>>;
}

/** An accepted version of a synced disposable list (docs/data.md, "Synced lists"). */
export interface ListVersion {
  source: string;
  /** SHA-256 of its sorted entries, hex. */
  hash: string;
  url: string;
  acceptedAt: Date;
  /** Entry → when the source first listed it (epoch ms). */
  entries: ReadonlyMap<string, number>;
}

/** An accepted version without its entries. */
export interface ListVersionSummary {
  hash: string;
  entryCount: number;
  acceptedAt: Date;
}

/** A source's version in force without its entries. */
export interface ListVersionInForce extends ListVersionSummary {
  source: string;
}

/** A synced source as the operator sees it. */
export interface ListSourceState {
  source: string;
  url: string;
  lastAttempt: Date;
  lastSuccess: Date | null;
  lastError: string | null;
  /** The version in force and the one a rollback returns to. */
  current: ListVersionSummary | null;
  previous: ListVersionSummary | null;
}

/** Which synced sources are in force for every process, and when a sync set it. */
export interface ListPolicy {
  /** Source names, sorted. */
  sources: string[];
  setAt: Date;
}

/** Synced lists (src/store/lists-repository.ts): their accepted versions and attempts, and the policy. */
export interface ListsRepository {
  /** The versions in force of these sources (those that have one), without their entries. */
  versionsInForce(sources: readonly string[]): Promise<ListVersionInForce[]>;
  /** One source's entries in force with when each was first listed, in batches (none without a version). */
  currentEntries(source: string): Promise<AsyncIterable<readonly (readonly [string, number])[]>>;
  /** One source's version in force; undefined when none was accepted. */
  currentVersion(source: string): Promise<ListVersion | undefined>;
  /** Every source ever attempted. */
  listStates(): Promise<ListSourceState[]>;
  /** Records an attempt: its error, or null for a success. */
  recordAttempt(source: string, url: string, at: Date, error: string | null): Promise<void>;
  /** Puts a version in force; the one in force becomes the previous one. */
  acceptVersion(version: ListVersion): Promise<void>;
  /**
   * Puts the previous version back in force (the current one becomes previous); with
   * `toBundled` and no previous one, the current one becomes previous and the bundled
   * entries are in force again. False when there was nothing to return to.
   */
  rollback(source: string, toBundled: boolean): Promise<boolean>;
  /** Deletes every stored version and attempt of a source; false when it had none. */
  removeSource(source: string): Promise<boolean>;
  /** The sources in force; undefined until a sync set them. */
  policy(): Promise<ListPolicy | undefined>;
  /** Sets the sources in force; false when they were these already. */
  setPolicy(sources: readonly string[], at: Date): Promise<boolean>;
}

/** Named locks that expire (src/store/locks-repository.ts): one instance at a time does a job. */
export interface LocksRepository {
  /** Takes the lock until `until` unless another holder has it unexpired at `now`. */
  tryLock(name: string, holder: string, now: Date, until: Date): Promise<boolean>;
  unlock(name: string, holder: string): Promise<void>;
}

/** The answer a reporter expected (docs/api.md "Reports of wrong answers"). */
export type ExpectedAnswer = "allow" | "block";

/** Where a report stands: open until the operator accepts or rejects it. */
export type ReportStatus = "open" | "accepted" | "rejected";

export const REPORT_STATUSES: readonly ReportStatus[] = ["open", "accepted", "rejected"];

/** A report of a wrong answer, filed by a key (docs/api.md "Reports of wrong answers"). Only the domain is kept, never an address. */
export interface Report {
  id: string;
  keyId: string;
  domain: string;
  expected: ExpectedAnswer;
  note: string | null;
  status: ReportStatus;
  filedAt: Date;
  reviewedAt: Date | null;
  reviewNote: string | null;
}

/** A report in the operator's queue, with how many distinct keys reported its domain with the same status. */
export interface ReportForReview extends Report {
  reporters: number;
}

/** How many reports a key may file within a window. */
export interface ReportLimit {
  max: number;
  windowMs: number;
}

export type FiledReport =
  /** Filed now, or the key's open report of the domain, returned instead of a second one. */
  | { outcome: "filed" | "duplicate"; report: Report }
  /** Refused (it expected today's answer): kept only to count towards the limit. */
  | { outcome: "refused" }
  /** The key filed `max` reports within the window: none filed; another may be filed at `retryAt`. */
  | { outcome: "limited"; retryAt: Date };

export type ClosedReports =
  /** The report and every other open report of its domain expecting the same answer, closed. */
  | { outcome: "closed"; report: Report; closed: string[] }
  | { outcome: "not_open"; report: Report }
  | { outcome: "unknown" };

/** Reports of wrong answers (src/store/reports-repository.ts): filed by keys, reviewed by the operator. */
export interface ReportsRepository {
  /**
   * Files a report, exactly across instances: a key's open report of the same domain is
   * returned instead, and a key with `limit.max` reports or refusals within the window
   * before `report.filedAt` files nothing. `refused`: the report expected today's answer;
   * it is kept as a refusal, never shown, which counts towards the limit (so refusals
   * cannot tell a key answers for free).
   */
  fileReport(
    report: Omit<Report, "id" | "status" | "reviewedAt" | "reviewNote"> & { refused?: boolean },
    limit: ReportLimit,
  ): Promise<FiledReport>;
  getReport(id: string): Promise<Report | undefined>;
  /** Reports with a status, at most `limit`: open ones by reporters (most first), then oldest first; others newest review first. */
  listReports(status: ReportStatus, limit: number): Promise<ReportForReview[]>;
  /** The reports an account's keys filed (docs/accounts.md), newest first, at most `limit`. */
  accountReports(accountId: string, limit: number): Promise<Report[]>;
  /** Accepts or rejects an open report, with every other open report of its domain expecting the same answer. */
  closeReports(
    id: string,
    status: Exclude<ReportStatus, "open">,
    note: string | null,
    at: Date,
  ): Promise<ClosedReports>;
}

/** One change an operator made, as the audit log keeps it. */
export interface AuditEntry {
  id: string;
  at: Date;
  /** `cli`, `admin-token` or an account's email. */
  actor: string;
  /** `<entity>.<verb>`, such as `key.revoke`. */
  action: string;
  entityKind: string;
  entityId: string | null;
  detail: Record<string, unknown>;
}

/** What an audit search asks: each given field must match; `action` without a dot names a family (`key` is `key.*`). */
export interface AuditSearch {
  actor?: string | undefined;
  action?: string | undefined;
  entityKind?: string | undefined;
  entityId?: string | undefined;
  limit: number;
}

/** The audit log (src/store/audit-repository.ts): written after each operator change, searched newest first. */
export interface AuditRepository {
  record(entry: Omit<AuditEntry, "id">): Promise<AuditEntry>;
  search(search: AuditSearch): Promise<AuditEntry[]>;
}

/** The events a webhook can subscribe to (docs/webhooks.md). */
export const WEBHOOK_EVENT_TYPES = [
  "domain.blocked",
  "domain.unblocked",
  "job.completed",
  "job.failed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The events a new webhook subscribes to when none are named. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEventType[] = ["domain.blocked", "domain.unblocked"];

/** A webhook subscription; its secret is shown once, when created. */
export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  createdAt: Date;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** An event claimed for one delivery attempt. */
export interface DueEvent {
  id: string;
  webhookId: string;
  url: string;
  secret: string;
  body: string;
  /** Attempts made before this one. */
  attempts: number;
  createdAt: Date;
}

/** One delivery attempt: the status code, or the error when no answer came. */
export interface DeliveryAttempt {
  attempt: number;
  at: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** An event with its delivery state and attempts. */
export interface Delivery {
  id: string;
  webhookId: string;
  domain: string;
  type: string;
  status: DeliveryStatus;
  createdAt: Date;
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: Date | null;
  attempts: DeliveryAttempt[];
}

/** Webhooks (src/store/webhooks-repository.ts): subscriptions and the outbox of their events. */
export interface WebhooksRepository {
  createWebhook(input: {
    url: string;
    secret: string;
    events: readonly WebhookEventType[];
    now: Date;
  }): Promise<Webhook>;
  listWebhooks(): Promise<Webhook[]>;
  /** Removes a webhook with its events and attempts; whether there was one. */
  removeWebhook(id: string): Promise<boolean>;
  /**
   * Claims due pending events for `holder` until `until` (one conditional update, so each
   * is claimed by one instance at a time): per webhook and domain, only the oldest pending one.
   */
  claimDue(holder: string, now: Date, until: Date, limit: number): Promise<DueEvent[]>;
  /** Records an attempt of an event `holder` claimed, and what comes next: done, another try at `nextAttemptAt`, or failed. */
  finishAttempt(
    eventId: string,
    holder: string,
    attempt: DeliveryAttempt,
    next: { status: DeliveryStatus; nextAttemptAt: Date },
  ): Promise<void>;
  /** Events newest first, of one webhook or all, with their attempts; at most `limit`. */
  deliveries(webhookId: string | null, limit: number): Promise<Delivery[]>;
  /** How many events each webhook has by status. */
  deliveryCounts(): Promise<{ webhookId: string; status: DeliveryStatus; count: number }[]>;
}

/** Where a list job stands (docs/jobs.md); `uploading` jobs are not shown yet. */
export const JOB_STATUSES = ["queued", "running", "paused", "done", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number] | "uploading";

/** How a job's checked items came out: `unknown` is a temporary DNS failure. */
export interface JobCounts {
  allow: number;
  block: number;
  invalid: number;
  unknown: number;
}

export interface Job {
  id: string;
  /** The key it was uploaded with; null for an account's own (uploaded in the console). */
  keyId: string | null;
  /** Whose it is: the key's account (or the account that uploaded it in the console), or the key without one. */
  owner: JobHolder;
  status: JobStatus;
  items: number;
  done: number;
  counts: JobCounts;
  /** The quota period its items were counted in. */
  periodStart: Date;
  /** JSON the runner and the results read (the upload's header and layout); opaque to the store. */
  header: string;
  layout: string;
  /** The uploaded file's name; null when the upload named none. */
  filename: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  expiresAt: Date | null;
}

/**
 * Whose jobs: an account's (every job of its keys, and the console's), a key's without an
 * account, or the operator's (every job).
 */
export type JobOwner = { kind: "account"; id: string } | { kind: "key"; id: string } | { kind: "operator" };

/** Whose a job is: an account, or a key without one. */
export type JobHolder = Exclude<JobOwner, { kind: "operator" }>;

/**
 * Who files an upload: a key (the job is its account's when it has one, else the key's),
 * or an account itself, with no key (the console's uploads).
 */
export type JobFiler = { keyId: string } | { accountId: string };

/** One input line of an upload: the input checked and its row (JSON, opaque to the store). */
export interface NewJobItem {
  input: string;
  row: string;
}

/** A batch claimed by one instance: its job, where it starts, and the input of each of its items. */
export interface ClaimedJobBatch {
  job: Job;
  firstSeq: number;
  inputs: string[];
}

/** A batch's outcomes: their text (opaque to the store, src/service/jobs/job-batch.ts) and what they add to the job's counts. */
export interface FinishedJobBatch {
  results: string;
  counts: JobCounts;
}

/** A checked batch, in input order: its items' rows and inputs (JSON arrays) and outcomes (as finished). */
export interface JobResultBatch {
  firstSeq: number;
  rows: string;
  inputs: string;
  results: string;
}

/** List jobs (src/store/jobs-repository.ts): uploads stored as batches of items, claimed whole by every instance. */
export interface JobsRepository {
  /** A job in `uploading`, invisible until `queueJob`, its owner the account (the key's, or the filer) or the key; its id. */
  startUpload(
    job: JobFiler & {
      header: string;
      layout: string;
      filename?: string | null;
      now: Date;
    },
  ): Promise<string>;
  /** Stores one batch of an upload's items, from `firstSeq` on: the unit claimed and answered. */
  addBatch(jobId: string, firstSeq: number, items: readonly NewJobItem[]): Promise<void>;
  /** Queues an uploaded job: its items were counted in the period starting `periodStart`. */
  queueJob(jobId: string, items: number, periodStart: Date): Promise<void>;
  /** Deletes a job and its items, whatever its status; whether there was one. */
  deleteJob(jobId: string): Promise<boolean>;
  getJob(id: string): Promise<Job | undefined>;
  /** Newest first: an account's jobs (of every key of it), a key's (without an account), or every job. */
  listJobs(owner: JobOwner, limit: number): Promise<Job[]>;
  /**
   * Claims one pending batch for `holder` until `until` (a conditional update, so no batch
   * is claimed by two instances at once; `inputs` is empty when another took it first).
   * The job is the one whose owner (account, or key without one) was served longest ago:
   * owners take turns.
   */
  claimBatch(holder: string, now: Date, until: Date): Promise<ClaimedJobBatch | undefined>;
  /** Extends `holder`'s claim of a job's pending batch starting at `firstSeq` until `until`. */
  renewClaim(jobId: string, holder: string, firstSeq: number, until: Date): Promise<void>;
  /**
   * Stores the outcomes of a batch `holder` claimed, in one transaction with the job's
   * counts; the job when this batch ended it (done, its `job.completed` events written
   * with it). Nothing is stored for a job no longer running, or a claim lost.
   */
  finishBatch(
    jobId: string,
    holder: string,
    firstSeq: number,
    finished: FinishedJobBatch,
    now: Date,
    retentionMs: number,
  ): Promise<Job | undefined>;
  /**
   * Ends a queued, running or paused job as `cancelled` or `failed` (with its
   * `job.failed` events), giving back the units of the items not checked; the ended job,
   * or undefined when it was not queued, running or paused.
   */
  endJob(
    id: string,
    status: "cancelled" | "failed",
    now: Date,
    retentionMs: number,
  ): Promise<Job | undefined>;
  /**
   * Notes that a batch of an active job failed: the job's failures started now unless
   * they had started already; since when they have lasted, or undefined when the job is
   * not active. A batch that succeeds (`finishBatch`) clears it.
   */
  noteFailure(jobId: string, now: Date): Promise<Date | undefined>;
  /** Gives up `holder`'s claim of a pending batch, so that it is claimed again at once. */
  releaseClaim(jobId: string, holder: string, firstSeq: number): Promise<void>;
  /** Pauses the account's queued and running jobs (none of their batches is claimed then); how many. */
  pauseAccountJobs(accountId: string): Promise<number>;
  /** Puts the account's paused jobs back where they were (queued, or running once started); how many. */
  resumeAccountJobs(accountId: string): Promise<number>;
  /** Deletes every job of the account, whatever its status, with its batches; how many. */
  deleteAccountJobs(accountId: string): Promise<number>;
  /** Checked batches starting after `afterSeq`, in input order; at most `limit`. */
  results(jobId: string, afterSeq: number, limit: number): Promise<JobResultBatch[]>;
  /** How many shown jobs there are by status. */
  countByStatus(): Promise<Map<string, number>>;
}

/** The kinds of change every server must take at once (src/store/changes.ts). */
export const CHANGE_TOPICS = ["keys", "overrides", "records", "lists", "account_lists"] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

/** The topics whose changes change verdicts: the sum of their counters is the policy version. */
export const POLICY_TOPICS = ["overrides", "lists"] as const satisfies readonly ChangeTopic[];

/** The policy version of a reading of the change counters. */
export function policyVersion(versions: ReadonlyMap<string, number>): number {
  return POLICY_TOPICS.reduce((sum, topic) => sum + (versions.get(topic) ?? 0), 0);
}

/** The change signal: a counter per topic, raised by the store in the transaction of each change of that kind. */
export interface ChangesRepository {
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
  reports: ReportsRepository;
  lists: ListsRepository;
  locks: LocksRepository;
  webhooks: WebhooksRepository;
  audit: AuditRepository;
  /**
   * Runs `work` on a store whose writes all commit together or not at all (an operator's
   * change with its audit entry); no network in `work`: it holds the database's lock.
   */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  accounts: AccountsRepository;
  jobs: JobsRepository;
  accountLists: AccountListsRepository;
  loginThrottle: LoginThrottleRepository;
  twoFactor: TwoFactorRepository;
  traffic: TrafficRepository;
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
