/**
 * Counts the queries a test DNS (loopback server or memory resolver) received, per
 * name, type and transport. Keeps counts, not entries, so a long benchmark run stays small.
 */
export type Transport = "udp" | "tcp" | "memory";

export interface QueryFilter {
  type?: string;
  transport?: Transport;
}

/** The `transport type` keys of the common record types, made once. */
const KINDS = Object.fromEntries(
  (["udp", "tcp", "memory"] as const).map((transport) => [
    transport,
    Object.fromEntries(
      ["A", "AAAA", "MX", "NS", "TXT", "CNAME", "SOA"].map((type) => [type, `${transport} ${type}`]),
    ),
  ]),
) as Record<Transport, Record<string, string>>;

export class QueryLog {
  /** With `perName: false` only the total is kept: counting then costs next to nothing (the engine benchmark). */
  constructor(private readonly options: { perName: boolean } = { perName: true }) {}

  /** Name (lower-cased) → `transport type` → count. Nested, so recording builds no key string. */
  private readonly counts = new Map<string, Map<string, number>>();
  private received = 0;

  record(name: string, type: string, transport: Transport): void {
    this.received++;
    if (!this.options.perName) return;
    const lower = name.toLowerCase();
    let byKind = this.counts.get(lower);
    if (!byKind) {
      byKind = new Map();
      this.counts.set(lower, byKind);
    }
    const kind = KINDS[transport][type] ?? `${transport} ${type}`;
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }

  /** Queries for this name (any case), optionally only of one type and/or transport. */
  count(name: string, filter: QueryFilter = {}): number {
    if (!this.options.perName) throw new Error("this query log keeps only the total");
    let sum = 0;
    for (const [kind, count] of this.counts.get(name.toLowerCase()) ?? []) {
      const [transport, type] = kind.split(" ");
      if (
        (filter.type === undefined || filter.type === type) &&
        (filter.transport === undefined || filter.transport === transport)
      ) {
        sum += count;
      }
    }
    return sum;
  }

  /** Queries for the name or any name under it (any case). */
  countUnder(name: string): number {
    const lower = name.toLowerCase();
    let sum = 0;
    for (const queried of this.counts.keys()) {
      if (queried === lower || queried.endsWith(`.${lower}`)) sum += this.count(queried);
    }
    return sum;
  }

  /** All queries received since the start or the last `clear()`. */
  get total(): number {
    return this.received;
  }

  clear(): void {
    this.counts.clear();
    this.received = 0;
  }
}
