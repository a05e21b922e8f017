/**
 * Counts the queries a test DNS (loopback server or memory resolver) received, per
 * name, type and transport. Keeps counts, not entries, so a long benchmark run stays small.
 */
export type Transport = "udp" | "tcp" | "memory";

export interface QueryFilter {
  type?: string;
  transport?: Transport;
}

export class QueryLog {
  /** Key: `transport type name` (name lower-cased). */
  private readonly counts = new Map<string, number>();
  private received = 0;

  record(name: string, type: string, transport: Transport): void {
    const key = `${transport} ${type} ${name.toLowerCase()}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.received++;
  }

  /** Queries for this name (any case), optionally only of one type and/or transport. */
  count(name: string, filter: QueryFilter = {}): number {
    let sum = 0;
    for (const [key, count] of this.counts) {
      const [transport, type, queried] = key.split(" ");
      if (
        queried === name.toLowerCase() &&
        (filter.type === undefined || filter.type === type) &&
        (filter.transport === undefined || filter.transport === transport)
      ) {
        sum += count;
      }
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
