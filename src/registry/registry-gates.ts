/**
 * Politeness towards registries: at most `concurrency` queries in flight per registry
 * (keyed by host, e.g. `rdap.verisign.com`), and a back-off period after a registry
 * said 429, during which it is not asked at all.
 */
import pLimit, { type LimitFunction } from "p-limit";

export class RegistryGates {
  private readonly limits = new Map<string, LimitFunction>();
  private readonly backOffUntil = new Map<string, number>();

  constructor(
    private readonly concurrency: number,
    private readonly clock: () => Date,
  ) {}

  /** Runs `query` once fewer than `concurrency` queries to `registry` are in flight. */
  run<T>(registry: string, query: () => Promise<T>): Promise<T> {
    let limit = this.limits.get(registry);
    if (!limit) {
      limit = pLimit(this.concurrency);
      this.limits.set(registry, limit);
    }
    return limit(query);
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
