/** One piece of work per key at a time: concurrent callers of the same key share its promise. */
export class InFlight<T> {
  private readonly running = new Map<string, Promise<T>>();

  has(key: string): boolean {
    return this.running.has(key);
  }

  /** The running work of `key`, or `work()` started and shared until it settles. */
  share(key: string, work: () => Promise<T>): Promise<T> {
    const running = this.running.get(key);
    if (running) return running;
    const task = work().finally(() => this.running.delete(key));
    this.running.set(key, task);
    return task;
  }
}
