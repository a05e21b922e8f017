/**
 * What the threads of a node process spend, from callgrind's files of one dump
 * (`--separate-threads=yes`: one file per thread). Each thread is named by the root of its
 * calls, read with `callgrind_annotate --inclusive=yes`:
 *
 * - main: thread 1, the event loop (the requests' JavaScript, and what the collector does
 *   on it: scavenges, the atomic pause of a mark-compact);
 * - jit: V8's platform worker threads (`PlatformWorkerThread`) running the optimizing
 *   compiler's jobs (`OptimizingCompileDispatcher::CompileTask`);
 * - gc: the same threads' other work, the collector's helpers (concurrent marking,
 *   sweeping, parallel scavenging);
 * - other: every other thread: libuv's threadpool (file writes), worker threads with an
 *   event loop of their own (SQLite's checkpoint thread; tsx's module loader in the bare
 *   route), the platform's delayed-task thread.
 */
import { execFileSync } from "node:child_process";

export interface ThreadGroups {
  all: number;
  main: number;
  jit: number;
  gc: number;
  other: number;
}

/** The inclusive instructions of the first function whose name contains `name`, in an annotation (0 when none: an idle thread's file has no lines). */
function inclusive(annotation: string, name: string): number {
  const line = annotation.split("\n").find((text) => text.includes(name));
  const count = Number(line?.trim().split(" ")[0]?.replaceAll(",", ""));
  return Number.isFinite(count) ? count : 0;
}

/** One thread's file: its total and what of it is the optimizing compiler's, when a V8 worker. */
function threadCosts(file: string): { total: number; v8Worker: boolean; jit: number } {
  const annotation = execFileSync("callgrind_annotate", ["--inclusive=yes", "--threshold=100", file], {
    maxBuffer: 256 * 1024 * 1024,
  }).toString();
  const total = inclusive(annotation, "PROGRAM TOTALS");
  const v8Worker = annotation.includes("PlatformWorkerThread");
  const jit = v8Worker ? inclusive(annotation, "OptimizingCompileDispatcher::CompileTask::RunInternal") : 0;
  return { total, v8Worker, jit };
}

/** The instructions of one dump's threads (`files`: thread number → file), grouped. */
export function groupThreads(files: ReadonlyMap<number, string>): ThreadGroups {
  const groups: ThreadGroups = { all: 0, main: 0, jit: 0, gc: 0, other: 0 };
  for (const [thread, file] of files) {
    const { total, v8Worker, jit } = threadCosts(file);
    groups.all += total;
    if (thread === 1) groups.main += total;
    else if (v8Worker) {
      groups.jit += jit;
      groups.gc += total - jit;
    } else groups.other += total;
  }
  return groups;
}
