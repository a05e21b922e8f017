/**
 * The schedule of every background loop (src/service/shared/periodic-task.ts): runs at start or
 * after its first wait, then again after each run; never two runs at once; a failed run
 * is reported and the schedule goes on; stop waits for a run in progress and nothing runs
 * after it; its timers never keep the process alive.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PeriodicTask, type PeriodicTaskOptions } from "../../../src/service/shared/periodic-task.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("PeriodicTask", () => {
  let task: PeriodicTask | undefined;
  afterEach(async () => {
    await task?.stop();
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  const started = (options: PeriodicTaskOptions) => {
    task = new PeriodicTask(options);
    task.start();
    return task;
  };

  it("runs at start and then every interval after a run ends", async () => {
    vi.useFakeTimers();
    let runs = 0;
    started({ run: async () => void runs++, everyMs: 20 });
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(19);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(60);
    expect(runs).toBe(5);
  });

  it("waits firstMs before the first run", async () => {
    vi.useFakeTimers();
    let runs = 0;
    started({ run: async () => void runs++, everyMs: 10_000, firstMs: 40 });
    await vi.advanceTimersByTimeAsync(39);
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
  });

  it("never runs twice at once: a run asked for meanwhile shares the one in progress", async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const task = started({
      run: async () => {
        runs++;
        most = Math.max(most, ++running);
        await sleep(30);
        running--;
      },
      everyMs: 1,
    });
    await Promise.all([task.runNow(), task.runNow(), task.runNow()]);
    expect(runs).toBe(1);
    await sleep(100);
    expect(most).toBe(1);
  });

  it("reports a failed run and keeps the schedule", async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    let runs = 0;
    started({
      run: async () => {
        runs++;
        if (runs <= 2) throw new Error(`run ${runs}`);
      },
      everyMs: 5,
      onError: (error) => errors.push(error),
    });
    await vi.advanceTimersByTimeAsync(20);
    expect(errors.map((error) => (error as Error).message)).toEqual(["run 1", "run 2"]);
    expect(runs).toBe(5);
  });

  it("stop waits for the run in progress, and nothing runs after it", async () => {
    const gate = deferred();
    let runs = 0;
    let finished = false;
    const task = started({
      run: async () => {
        runs++;
        await gate.promise;
        finished = true;
      },
      everyMs: 1,
    });
    let stopped = false;
    const stopping = task.stop().then(() => {
      stopped = true;
    });
    await sleep(20);
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    expect(finished).toBe(true);
    await sleep(30);
    expect(runs).toBe(1);
  });

  it("never keeps the process alive: every timer it sets is unref'd", async () => {
    const timers: NodeJS.Timeout[] = [];
    const setTimer = globalThis.setTimeout;
    vi.spyOn(globalThis, "setTimeout").mockImplementation(((...args: Parameters<typeof setTimeout>) => {
      const timer = setTimer(...args);
      timers.push(timer);
      return timer;
    }) as typeof setTimeout);
    started({ run: async () => undefined, everyMs: 1000, firstMs: 1000 });
    await task?.runNow();
    vi.restoreAllMocks();
    expect(timers.length).toBeGreaterThan(0);
    for (const timer of timers) expect(timer.hasRef()).toBe(false);
  });
});
