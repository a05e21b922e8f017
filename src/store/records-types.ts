/**
 * Domain records and their block statuses: the repository's contract and rows, implemented in
 * src/store/records-repository.ts.
 */
import type { DomainFacts } from "../core/check.js";

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
