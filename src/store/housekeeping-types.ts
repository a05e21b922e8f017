/**
 * Pruning for the housekeeping task: the repository's contract and rows, implemented in
 * src/store/housekeeping-repository.ts.
 */

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
