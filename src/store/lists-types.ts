/**
 * Synced lists, their versions and the policy: the repository's contract and rows, implemented in
 * src/store/lists-repository.ts.
 */

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
