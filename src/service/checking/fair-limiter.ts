/**
 * A concurrency limit shared fairly between clients: at most `concurrency` tasks run at
 * once, a named client never holds more than `perClient` of them, and a freed slot goes
 * to the next client in turn (round-robin over the clients with waiting tasks, each
 * client's own tasks in order). So a client with thousands of waiting tasks holds at
 * most its share, and another client's task waits at most for one slot to free, never
 * behind the first client's queue. Work without a client (the process's own: the CLI,
 * refreshes nobody asked for) is capped only by `concurrency`.
 */

/** The client of work that has none: never capped per client. */
const PROCESS = "";

interface Waiting {
  start: () => void;
}

export class FairLimiter {
  private active = 0;
  private readonly activeOf = new Map<string, number>();
  /** Clients with waiting tasks, in turn order; a served client moves to the end. */
  private readonly queues = new Map<string, Waiting[]>();
  private queued = 0;

  constructor(
    readonly concurrency: number,
    readonly perClient: number,
  ) {}

  /** Runs `task` once a slot is free for `client` (default: the process's own work). */
  run<T>(task: () => Promise<T>, client = PROCESS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.active++;
        this.activeOf.set(client, (this.activeOf.get(client) ?? 0) + 1);
        Promise.resolve()
          .then(task)
          .then(resolve, reject)
          .finally(() => this.release(client));
      };
      this.enqueue(client, { start });
      this.startNext();
    });
  }

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queued;
  }

  private mayStart(client: string): boolean {
    if (this.active >= this.concurrency) return false;
    return client === PROCESS || (this.activeOf.get(client) ?? 0) < this.perClient;
  }

  private enqueue(client: string, waiting: Waiting): void {
    const queue = this.queues.get(client);
    if (queue) queue.push(waiting);
    else this.queues.set(client, [waiting]);
    this.queued++;
  }

  private release(client: string): void {
    this.active--;
    const left = (this.activeOf.get(client) ?? 1) - 1;
    if (left === 0) this.activeOf.delete(client);
    else this.activeOf.set(client, left);
    this.startNext();
  }

  /** Starts waiting tasks, one client at a time in turn, while slots are free. */
  private startNext(): void {
    let startedOne = true;
    while (startedOne && this.active < this.concurrency) {
      startedOne = false;
      for (const [client, queue] of this.queues) {
        if (!this.mayStart(client)) continue;
        const next = queue.shift() as Waiting;
        this.queued--;
        // Its turn is used: to the end of the line, or out of it when nothing waits.
        this.queues.delete(client);
        if (queue.length > 0) this.queues.set(client, queue);
        next.start();
        startedOne = true;
        break;
      }
    }
  }
}
