/**
 * Opens a Kysely instance for a database location. This is the only dialect-specific
 * module: SQLite gets its connection pragmas, PostgreSQL a connection pool. Everything
 * above it is the same SQL for both.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { Worker } from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";
import { LRUCache } from "lru-cache";
import type { DatabaseLocation } from "./database-url.js";
import { ensurePrivateDirectory, ensurePrivateFile } from "./private-files.js";
import type { Database } from "./schema.js";

/** Connections per instance; several instances share the server's max_connections. */
const POSTGRES_POOL_SIZE = 10;
/** How long a SQLite writer waits for another process's lock before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 5000;
/** Distinct SQL texts whose compiled SQLite statements are kept. */
const SQLITE_STATEMENT_CACHE_SIZE = 256;
/** How often the background thread checkpoints a SQLite file's write-ahead log. */
const CHECKPOINT_EVERY_MS = 10;
/** WAL pages (4 KiB) at which the connection checkpoints itself: only if the thread falls behind or dies. */
const WAL_BACKSTOP_PAGES = 10_000;

/** The checkpointing thread: its own connection, a passive checkpoint every few ms, until told to close. */
const CHECKPOINTER = `
const { workerData, parentPort } = require("node:worker_threads");
const SQLite = require(workerData.module);
const db = new SQLite(workerData.path, { fileMustExist: true });
const timer = setInterval(() => db.pragma("wal_checkpoint(PASSIVE)"), workerData.everyMs);
parentPort.once("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});`;

/**
 * Checkpoints a SQLite file's WAL in a thread of its own (docs/deploy.md "Sizing"):
 * better-sqlite3 runs on the event loop, and a commit that crosses SQLite's automatic
 * checkpoint copies megabytes into the database file and syncs it, 10-40 ms during
 * which no request is answered. Checkpointed every few milliseconds from another
 * connection, the log stays small and restarts, and commits only append to it. Stops
 * with the returned function.
 */
function checkpointInBackground(path: string, onError: (error: Error) => void): () => void {
  const worker = new Worker(CHECKPOINTER, {
    eval: true,
    workerData: {
      module: createRequire(import.meta.url).resolve("better-sqlite3"),
      path,
      everyMs: CHECKPOINT_EVERY_MS,
    },
  });
  worker.unref();
  // The connection's own checkpoints (WAL_BACKSTOP_PAGES) take over.
  worker.on("error", onError);
  return () => worker.postMessage("close");
}

/**
 * Kysely prepares every query it runs, and better-sqlite3 compiles the SQL on every
 * prepare, which costs several times what running a small query does. Statements are
 * re-used by their SQL text instead. Safe because Kysely runs one query at a time on
 * its single SQLite connection.
 */
function withStatementCache(database: BetterSqlite3.Database, onClose?: () => void): SqliteDatabase {
  const statements = new LRUCache<string, SqliteStatement>({ max: SQLITE_STATEMENT_CACHE_SIZE });
  return {
    close: () => {
      onClose?.();
      database.close();
    },
    prepare(text) {
      let statement = statements.get(text);
      if (!statement) {
        statement = database.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/** See openDatabase: the query that uses the broken client reports the failure. */
function ignoreCheckedOutClientError(): void {}

/**
 * `onIdleError` receives the errors no query sees: a pooled PostgreSQL connection that
 * broke while idle (server restart, network cut). They must not crash the process; the
 * next query gets a fresh connection or fails, and /readyz reports it.
 */
export async function openDatabase(
  location: DatabaseLocation,
  onIdleError: (error: Error) => void,
  options: { checkpointInBackground?: boolean } = {},
): Promise<Kysely<Database>> {
  if (location.dialect === "postgres") {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: location.connectionString, max: POSTGRES_POOL_SIZE });
    pool.on("error", onIdleError);
    // pg-pool listens for a client's errors only while it is idle: a client checked out
    // when its connection breaks (a backend terminated mid-query) would emit an 'error'
    // nobody handles, and crash the process. Such an error also fails the query in
    // flight (or the next one on that client), which the store turns into
    // StoreUnavailableError; here it only has to be handled.
    pool.on("connect", (client) => client.on("error", ignoreCheckedOutClientError));
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  const { default: SQLite } = await import("better-sqlite3");
  // Only the default file's directory (STATE_DIR) is created; a missing directory of an
  // explicit sqlite: path is refused by loadConfig, and by better-sqlite3 here.
  if (location.createDirectory) ensurePrivateDirectory(dirname(location.path));
  // A new file is created 0600 before SQLite opens it; its -wal and -shm files take its mode.
  if (location.path !== ":memory:") ensurePrivateFile(location.path);
  const database = new SQLite(location.path);
  database.pragma("journal_mode = WAL");
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  let stopCheckpoints: (() => void) | undefined;
  if (options.checkpointInBackground && location.path !== ":memory:") {
    database.pragma(`wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);
    stopCheckpoints = checkpointInBackground(location.path, onIdleError);
  }
  return new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(database, stopCheckpoints) }),
  });
}
