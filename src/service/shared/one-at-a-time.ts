/**
 * A task that runs one at a time and never rejects: a call while it runs shares that run,
 * and `again()` waits for a running one (which may have read what just changed too early)
 * before it starts another. The loads of the learned snapshot and of the lists in force,
 * and the runs of every periodic task (periodic-task.ts), are such tasks.
 */
export class OneAtATime {
  private running: Promise<void> | undefined;

  constructor(
    private readonly task: () => Promise<void>,
    /** A run that failed; the next run tries again. */
    private readonly onError?: (error: unknown) => void,
  ) {}

  get busy(): boolean {
    return this.running !== undefined;
  }

  run(): Promise<void> {
    this.running ??= this.task()
      .catch((error: unknown) => this.onError?.(error))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** A run that began after this call. */
  async again(): Promise<void> {
    await this.running;
    await this.run();
  }

  /** Waits for the running run, if any. */
  async idle(): Promise<void> {
    await this.running;
  }
}
