/**
 * Politeness towards registries: at most `concurrency` queries in flight per registry
 * (keyed by host, e.g. `rdap.verisign.com`), and a back-off period after a registry
 * said 429, during which it is not asked at all.
 *
 * Bounded waiting. At most `maxWaiting` queries wait per registry; a query asked for
 * beyond that is refused at once, and a query whose look-up passed its deadline while it
 * waited is dropped when its turn comes, never sent. Either way `run` answers undefined.
 * A registry slower than the traffic would otherwise collect a queue that grows with
 * the traffic, of queries whose callers gave up long ago.
 */
import pLimit, { type LimitFunction } from "p-limit";

export class RegistryGates {
  private readonly limits = new Map<string, LimitFunction>();
  private readonly backOffUntil = new Map<string, number>();

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
    private readonly clock: () => Date,
  ) {}

  /**
   * Runs `query` once fewer than `concurrency` queries to `registry` are in flight;
   * undefined when too many wait already or `signal` aborted before its turn.
   */
  run<T>(registry: string, signal: AbortSignal, query: () => Promise<T>): Promise<T | undefined> {
    let limit = this.limits.get(registry);
    if (!limit) {
      limit = pLimit(this.concurrency);
      this.limits.set(registry, limit);
    }
    // p-limit starts a query a microtask after it is asked for: of those pending, the ones
    // a free slot will take do not wait.
    const waiting = limit.pendingCount - Math.max(0, this.concurrency - limit.activeCount);
    if (waiting >= this.maxWaiting) return Promise.resolve(undefined);
    return limit(() => (signal.aborted ? undefined : query()));
  }

  backOff(registry: string, ms: number): void {
    this.backOffUntil.set(registry, this.clock().getTime() + ms);
  }

  isBackedOff(registry: string): boolean {
    const until = this.backOffUntil.get(registry);
    if (until === undefined) return false;
    if (until > this.clock().getTime()) return true;
    this.backOffUntil.delete(registry);
    return false;
  }
}
