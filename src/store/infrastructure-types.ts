/**
 * Learned infrastructure evidence: the repository's contract and rows, implemented in
 * src/store/infrastructure-repository.ts.
 */
import type { Evidence, InfrastructureCounts, InfrastructureKind } from "../core/learned.js";

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
