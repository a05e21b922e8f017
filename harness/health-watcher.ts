/**
 * Asks a service's `/healthz` every `everyMs` from a child process of its own, so that
 * what it measures is the service's answer time, not the event loop of a benchmark that
 * is busy generating load. `watchHealth` resolves once the watcher's first, untimed
 * request has been answered: that one pays for the child's own start (loading Node's
 * fetch, opening the connection), which is no part of the service's answer time.
 * With `keyedCheck`, each round also sends a `POST /v2/` of its domain with its key (a
 * non-200 ends the watch with an error). `stop()` ends the watch and gives the time of
 * every answer, in ms, ascending. A bound on those times is written for a quiet machine and
 * stretched by `pace`, the machine's pace read when the watch starts and when it is checked
 * (harness/machine-pace.ts), so its importers hold on a loaded machine.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type Pace, startPace } from "./machine-pace.js";

const MODULE = fileURLToPath(import.meta.url);

export interface HealthWatch {
  /** Ends the watch; how long each `/healthz` answer took, in milliseconds, ascending. */
  stop(): Promise<number[]>;
  /** The machine's pace from the watch's start: `pace.bound(quietMs)` bounds an answer time. */
  readonly pace: Pace;
}

/** A keyed check the watcher sends beside each `/healthz`. */
export interface KeyedCheck {
  secret: string;
  domain: string;
}

export async function watchHealth(url: string, everyMs = 50, keyedCheck?: KeyedCheck): Promise<HealthWatch> {
  // Under vitest the sources are not loaded through tsx: the child needs it to run this file.
  const tsx = process.execArgv.some((arg) => arg.includes("tsx")) ? [] : ["--import", "tsx"];
  const check = keyedCheck ? [keyedCheck.secret, keyedCheck.domain] : [];
  const child = fork(MODULE, [url, String(everyMs), ...check], { execArgv: [...process.execArgv, ...tsx] });
  const [first] = await Promise.race([
    once(child, "message"),
    once(child, "exit").then(([code]) => Promise.reject(new Error(`health watcher exited with ${code}`))),
  ]);
  if (first !== "watching") throw new Error(`health watcher said ${String(first)}`);
  const pace = startPace();
  return {
    pace,
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

async function askKeyed(url: string, { secret, domain }: KeyedCheck): Promise<void> {
  const response = await fetch(`${url}/v2/`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ domain }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`the keyed check answered ${response.status}`);
}

/** Times `asked`, adding its milliseconds to `took`. */
async function timed(took: number[], asked: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await asked();
  took.push(performance.now() - started);
}

async function watch(url: string, everyMs: number, keyedCheck: KeyedCheck | undefined): Promise<void> {
  const took: number[] = [];
  let running = true;
  process.once("message", () => {
    running = false;
  });
  await ask(url);
  // The keyed check's first answer looks its domain up; the rounds then time cached ones.
  if (keyedCheck) await askKeyed(url, keyedCheck);
  process.send?.("watching");
  while (running) {
    await timed(took, () => ask(url));
    if (keyedCheck) await timed(took, () => askKeyed(url, keyedCheck));
    await sleep(everyMs);
  }
  process.send?.(
    took.sort((a, b) => a - b),
    () => process.exit(0),
  );
}

if (process.argv[1] === MODULE && process.send !== undefined) {
  const [url = "", everyMs = "50", secret, domain] = process.argv.slice(2);
  void watch(url, Number(everyMs), secret && domain ? { secret, domain } : undefined);
}
