/** Traffic counters: the repository's contract and rows, implemented in src/store/traffic-repository.ts. */

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
