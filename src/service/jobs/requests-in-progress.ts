/**
 * The API's checking requests in progress in this process, so that list jobs give way
 * while any is (docs/jobs.md "Headroom"): the runner starts no check, claims and writes
 * no batch until they have answered, or a short while has passed. A count that no
 * request moved for STALE_MS is taken as idle, so a response that never finished (its
 * client gone mid-answer) cannot hold the jobs back.
 */

/** How long a count may stand still before it is taken as idle. */
const STALE_MS = 1000;

export class RequestsInProgress {
  private count = 0;
  private movedAt = 0;
  /** The wait of everyone waiting for idle, shared, with its timer. */
  private idle: { promise: Promise<void>; wake: () => void } | undefined;

  started(): void {
    this.count++;
    this.movedAt = performance.now();
  }

  ended(): void {
    if (this.count > 0) this.count--;
    this.movedAt = performance.now();
    if (this.count === 0) this.idle?.wake();
  }

  /** Whether a checking request is in progress. */
  busy(): boolean {
    return this.count > 0 && performance.now() - this.movedAt < STALE_MS;
  }

  /** Resolves once no checking request is in progress, or after `maxMs` at most. */
  whenIdle(maxMs: number): Promise<void> {
    if (!this.busy()) return Promise.resolve();
    if (!this.idle) {
      let wake = () => {};
      const promise = new Promise<void>((resolve) => {
        const timer = setTimeout(() => wake(), maxMs);
        wake = () => {
          clearTimeout(timer);
          this.idle = undefined;
          resolve();
        };
      });
      this.idle = { promise, wake };
    }
    return this.idle.promise;
  }
}
