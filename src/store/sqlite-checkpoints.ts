/**
 * SQLite's write-ahead log checkpointed in a thread of its own (docs/deploy.md "Sizing"):
 * better-sqlite3 runs on the event loop, and a commit that crosses SQLite's automatic
 * checkpoint copies megabytes into the database file and syncs it, 10-40 ms during which
 * no request is answered. Checkpointed from another connection, the log stays small and
 * restarts, and commits only append to it. The thread is driven by what the connection
 * writes, not by the clock: each write statement adds
 * an estimate of the log pages it appended to a counter shared with the thread, and
 * the statement that takes the counter past WAKE_AT_PAGES wakes it. The thread sleeps
 * otherwise (nothing to do on an idle server), and after FALLBACK_MS checkpoints what
 * smaller writes left in the log. Until the thread has started, the connection
 * checkpoints itself as SQLite does by default (every 1,000 pages); then only at
 * WAL_BACKSTOP_PAGES, should the thread fall behind or die.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";
import type { SqliteStatement } from "kysely";

/** Estimated log pages (4 KiB) written since the last checkpoint at which the thread is woken: 256 KiB. */
const WAKE_AT_PAGES = 64;
/** How long the thread sleeps before checkpointing writes that stayed under WAKE_AT_PAGES. */
const FALLBACK_MS = 1000;
const PAGE_BYTES = 4096;
/** WAL pages (4 KiB) at which the connection checkpoints itself once the thread runs. */
const WAL_BACKSTOP_PAGES = 10_000;

/**
 * The thread: its own connection, a passive checkpoint when the counter (slot 0) reaches
 * `wakeAt` or when `fallbackMs` passed with something written, until told to close.
 * `Atomics.waitAsync` keeps its event loop free for the close message.
 */
const CHECKPOINTER = `
const { workerData, parentPort } = require("node:worker_threads");
const SQLite = require(workerData.module);
const db = new SQLite(workerData.path, { fileMustExist: true });
const checkpoint = db.prepare("pragma wal_checkpoint(PASSIVE)");
const written = new Int32Array(workerData.written);
parentPort.postMessage("ready");
let open = true;
parentPort.once("message", () => {
  open = false;
  Atomics.notify(written, 0);
});
(async () => {
  let timedOut = false;
  while (open) {
    const pages = Atomics.load(written, 0);
    if (pages >= workerData.wakeAt || (timedOut && pages > 0)) {
      Atomics.store(written, 0, 0);
      checkpoint.all();
      timedOut = false;
      continue;
    }
    const wait = Atomics.waitAsync(written, 0, pages, workerData.fallbackMs);
    timedOut = (wait.async ? await wait.value : wait.value) === "timed-out";
  }
  db.close();
  parentPort.close();
})();`;

/** The log pages a write statement may have appended: one, one per row it changed, one per 4 KiB of its parameters. */
function pagesOf(rows: number, parameters: ReadonlyArray<unknown>): number {
  let bytes = 0;
  for (const parameter of parameters) {
    if (typeof parameter === "string") bytes += parameter.length;
    else if (parameter instanceof Uint8Array) bytes += parameter.byteLength;
  }
  return 1 + rows + Math.floor(bytes / PAGE_BYTES);
}

export interface CheckpointThread {
  /** The statement as Kysely runs it: a write statement counts what it wrote (reads pass as they are). */
  counted(statement: BetterSqlite3.Statement): SqliteStatement;
  /** Closes the thread's connection and ends it (before the connection closes). */
  stop(): void;
}

/**
 * Starts the thread for the SQLite file of a connection in WAL mode. Errors reach
 * `onError`; the connection's own backstop takes over should the thread die.
 */
export function checkpointInBackground(
  database: BetterSqlite3.Database,
  onError: (error: Error) => void,
): CheckpointThread {
  const written = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(CHECKPOINTER, {
    eval: true,
    workerData: {
      module: createRequire(import.meta.url).resolve("better-sqlite3"),
      path: database.name,
      written: written.buffer,
      wakeAt: WAKE_AT_PAGES,
      fallbackMs: FALLBACK_MS,
    },
  });
  worker.unref();
  worker.on("error", onError);
  worker.once("message", () => {
    if (database.open) database.pragma(`wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);
  });
  const note = (pages: number) => {
    const before = Atomics.add(written, 0, pages);
    if (before < WAKE_AT_PAGES && before + pages >= WAKE_AT_PAGES) Atomics.notify(written, 0);
  };
  return {
    counted(statement) {
      // `readonly`, not `reader`: an upsert with RETURNING (the quota's) reads rows and writes.
      if (statement.readonly) return statement;
      return {
        reader: statement.reader,
        all(parameters) {
          const rows = statement.all(parameters);
          note(pagesOf(rows.length, parameters));
          return rows;
        },
        run(parameters) {
          const result = statement.run(parameters);
          note(pagesOf(Number(result.changes), parameters));
          return result;
        },
        iterate(parameters) {
          note(pagesOf(0, parameters));
          return statement.iterate(parameters);
        },
      };
    },
    stop: () => worker.postMessage("close"),
  };
}
