/**
 * Recently checked domains: the repository's contract and rows, implemented in
 * src/store/recent-repository.ts.
 */

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
