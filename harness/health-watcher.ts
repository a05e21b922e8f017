/**
 * Asks a service's `/healthz` every `everyMs` from a child process of its own, so that
 * what it measures is the service's answer time, not the event loop of a benchmark that
 * is busy generating load. `watchHealth` resolves once the watcher's first, untimed
 * request has been answered: that one pays for the child's own start (loading Node's
 * fetch, opening the connection), which is no part of the service's answer time.
 * `stop()` ends the watch and gives the time of every answer, in ms, ascending.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const MODULE = fileURLToPath(import.meta.url);

export interface HealthWatch {
  /** Ends the watch; how long each `/healthz` answer took, in milliseconds, ascending. */
  stop(): Promise<number[]>;
}

export async function watchHealth(url: string, everyMs = 50): Promise<HealthWatch> {
  // Under vitest the sources are not loaded through tsx: the child needs it to run this file.
  const tsx = process.execArgv.some((arg) => arg.includes("tsx")) ? [] : ["--import", "tsx"];
  const child = fork(MODULE, [url, String(everyMs)], { execArgv: [...process.execArgv, ...tsx] });
  const [first] = await Promise.race([
    once(child, "message"),
    once(child, "exit").then(([code]) => Promise.reject(new Error(`health watcher exited with ${code}`))),
  ]);
  if (first !== "watching") throw new Error(`health watcher said ${String(first)}`);
  return {
    stop: () =>
      new Promise<number[]>((resolve, reject) => {
        child.once("message", (took) => resolve(took as number[]));
        child.once("exit", (code) => reject(new Error(`health watcher exited with ${code}`)));
        child.send("stop");
      }),
  };
}

async function ask(url: string): Promise<void> {
  await fetch(`${url}/healthz`).then((response) => response.arrayBuffer());
}

async function watch(url: string, everyMs: number): Promise<void> {
  const took: number[] = [];
  let running = true;
  process.once("message", () => {
    running = false;
  });
  await ask(url);
  process.send?.("watching");
  while (running) {
    const started = performance.now();
    await ask(url);
    took.push(performance.now() - started);
    await sleep(everyMs);
  }
  process.send?.(
    took.sort((a, b) => a - b),
    () => process.exit(0),
  );
}

if (process.argv[1] === MODULE && process.send !== undefined) {
  void watch(process.argv[2] ?? "", Number(process.argv[3] ?? 50));
}
