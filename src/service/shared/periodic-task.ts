/**
 * The one schedule of every background loop (docs/architecture.md, "Background loops"):
 * a task that runs at start (or `firstMs` later) and then `everyMs` after each run
 * ends, one run at a time, on unref'd timers (it never keeps the process alive). A run
 * that fails goes to `onError` and the schedule goes on; `stop()` waits for a run in
 * progress.
 */
import { OneAtATime } from "./one-at-a-time.js";

export interface PeriodicTaskOptions {
  run: () => Promise<void>;
  /** The wait after a run ends before the next one starts (a function: asked after each run). */
  everyMs: number | (() => number);
  /** The wait before the first run; default 0 (at start). */
  firstMs?: number;
  /** A run that failed; the next run is scheduled as usual. */
  onError?: ((error: unknown) => void) | undefined;
}

export class PeriodicTask {
  private readonly runs: OneAtATime;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: PeriodicTaskOptions) {
    this.runs = new OneAtATime(options.run, options.onError);
  }

  start(): void {
    const firstMs = this.options.firstMs ?? 0;
    if (firstMs > 0) this.schedule(firstMs);
    else this.tick();
  }

  /** Runs now, or shares the run in progress; never rejects. */
  runNow(): Promise<void> {
    return this.runs.run();
  }

  /** A run that began after this call (one in progress may have read too early); never rejects. */
  runAgain(): Promise<void> {
    return this.runs.again();
  }

  /** No run starts any more; resolves once a run in progress has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.runs.idle();
  }

  private tick(): void {
    void this.runs.run().then(() => {
      const { everyMs } = this.options;
      this.schedule(typeof everyMs === "number" ? everyMs : everyMs());
    });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.tick(), delayMs);
    this.timer.unref();
  }
}
