/**
 * Asks a service's `/healthz` every `everyMs` from a child process of its own, so that
 * what it measures is the service's answer time, not the event loop of a benchmark that
 * is busy generating load. `stop()` ends the watch and gives the slowest answer in ms.
 */
import { fork } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const MODULE = fileURLToPath(import.meta.url);

export interface HealthWatch {
  /** Ends the watch; the slowest `/healthz` answer it saw, in milliseconds. */
  stop(): Promise<number>;
}

export function watchHealth(url: string, everyMs = 50): HealthWatch {
  const child = fork(MODULE, [url, String(everyMs)], { execArgv: process.execArgv });
  return {
    stop: () =>
      new Promise<number>((resolve, reject) => {
        child.once("message", (slowest) => resolve(slowest as number));
        child.once("exit", (code) => reject(new Error(`health watcher exited with ${code}`)));
        child.send("stop");
      }),
  };
}

async function watch(url: string, everyMs: number): Promise<void> {
  let slowest = 0;
  let running = true;
  process.once("message", () => {
    running = false;
  });
  while (running) {
    const started = performance.now();
    await fetch(`${url}/healthz`).then((response) => response.arrayBuffer());
    slowest = Math.max(slowest, performance.now() - started);
    await sleep(everyMs);
  }
  process.send?.(slowest, () => process.exit(0));
}

if (process.argv[1] === MODULE && process.send !== undefined) {
  void watch(process.argv[2] ?? "", Number(process.argv[3] ?? 50));
}
