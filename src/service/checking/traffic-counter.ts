/**
 * The service's traffic counted as it runs (docs/console.md "Traffic"), per instance and
 * in memory: a check costs an increment of its surface's count and, for a block or a
 * disposable provider, a map update keyed by strings the record already holds. What was
 * counted is added to the database's daily counters in one batch by `flush()` (the
 * server's periodic task, and once more at shutdown); a write that fails keeps its
 * counts for the next one, so nothing is lost. The names a day can hold are bounded:
 * each instance counts at most NAMES_PER_DAY distinct providers and blocked domains a
 * day, the later ones still counted in their surface and reason.
 */
import { DAY_MS } from "../../core/time.js";
import type { TrafficCount, TrafficKind, TrafficRepository } from "../../store/index.js";

/** Where a check was asked for: `POST /v2/` and `GET /`, `POST /v2/bulk`, list jobs, the result pages. */
export type Surface = "api" | "bulk" | "jobs" | "pages";

/** Every surface, in the order the desk and `mailrisk stats` show them. */
export const SURFACES: readonly Surface[] = ["api", "bulk", "jobs", "pages"];

/** Distinct disposable providers, and distinct blocked domains, one instance counts per UTC day. */
export const NAMES_PER_DAY = 10_000;

/** What a check's counting reads of its record. */
export interface CountedRecord {
  block: boolean;
  reason: string;
  domain: string;
  disposable_provider: string | null;
}

/** A blocking verdict's reason as counted: `Heuristics x3` is `Heuristics`. */
export function blockReason(reason: string): string {
  return reason.startsWith("Heuristics x") ? "Heuristics" : reason;
}

/** One UTC day's counts since the last flush. */
class DayCounts {
  readonly surfaces: Record<Surface, number> = { api: 0, bulk: 0, jobs: 0, pages: 0 };
  readonly blocks = new Map<string, number>();
  readonly providers = new Map<string, number>();
  readonly domains = new Map<string, number>();

  constructor(readonly day: number) {}

  rows(): TrafficCount[] {
    const day = new Date(this.day);
    const rows: TrafficCount[] = [];
    for (const surface of SURFACES) {
      const count = this.surfaces[surface];
      if (count > 0) rows.push({ day, kind: "surface", name: surface, count });
    }
    const named: [TrafficKind, Map<string, number>][] = [
      ["block", this.blocks],
      ["provider", this.providers],
      ["domain", this.domains],
    ];
    for (const [kind, counts] of named) {
      for (const [name, count] of counts) rows.push({ day, kind, name, count });
    }
    return rows;
  }
}

function add(counts: Map<string, number>, name: string, by = 1): void {
  counts.set(name, (counts.get(name) ?? 0) + by);
}

export class TrafficCounter {
  private current: DayCounts;
  /** Days that ended since the last flush. */
  private ended: DayCounts[] = [];
  /** Counts a failed write left, added to the next. */
  private unwritten: TrafficCount[] = [];
  /** The names counted today, each set kept under NAMES_PER_DAY. */
  private providersToday = new Set<string>();
  private domainsToday = new Set<string>();

  /** `clock`: ms since the epoch (tests move it). */
  constructor(private readonly clock: () => number = Date.now) {
    this.current = new DayCounts(this.dayOf(clock()));
  }

  /** Counts one check of `surface` and what its record says. */
  count(surface: Surface, record: CountedRecord): void {
    const now = this.clock();
    let day = this.current;
    if (now < day.day || now >= day.day + DAY_MS) day = this.turn(now);
    day.surfaces[surface]++;
    if (record.block) {
      add(day.blocks, blockReason(record.reason));
      if (this.admits(this.domainsToday, record.domain)) add(day.domains, record.domain);
    }
    const provider = record.disposable_provider;
    if (provider !== null && this.admits(this.providersToday, provider)) add(day.providers, provider);
  }

  /** Adds everything counted so far to the daily counters; on failure keeps it for the next call (and rejects). */
  async flush(into: Pick<TrafficRepository, "addCounts">): Promise<void> {
    const counts = this.take();
    if (counts.length === 0) return;
    try {
      await into.addCounts(counts);
    } catch (error) {
      this.unwritten = merged([...counts, ...this.unwritten]);
      throw error;
    }
  }

  /** Everything counted since the last call, one row per day, kind and name. */
  take(): TrafficCount[] {
    const rows = [...this.unwritten, ...this.ended.flatMap((day) => day.rows()), ...this.current.rows()];
    this.unwritten = [];
    this.ended = [];
    this.current = new DayCounts(this.current.day);
    return merged(rows);
  }

  private dayOf(now: number): number {
    return now - (now % DAY_MS);
  }

  /** A new day (or the clock moved back): the day counted so far waits for the flush. */
  private turn(now: number): DayCounts {
    this.ended.push(this.current);
    this.current = new DayCounts(this.dayOf(now));
    this.providersToday = new Set();
    this.domainsToday = new Set();
    return this.current;
  }

  /** Whether a name is counted today: already counted, or a new one within the bound. */
  private admits(today: Set<string>, name: string): boolean {
    if (today.has(name)) return true;
    if (today.size >= NAMES_PER_DAY) return false;
    today.add(name);
    return true;
  }
}

/** Rows of the same day, kind and name added into one. */
function merged(rows: readonly TrafficCount[]): TrafficCount[] {
  const byKey = new Map<string, TrafficCount>();
  for (const row of rows) {
    const key = `${row.day.getTime()} ${row.kind} ${row.name}`;
    const seen = byKey.get(key);
    if (seen) seen.count += row.count;
    else byKey.set(key, { ...row });
  }
  return [...byKey.values()];
}
