/**
 * Opens a Kysely instance for a database location. This is the only dialect-specific
 * module: SQLite gets its connection pragmas, PostgreSQL a connection pool. Everything
 * above it is the same SQL for both.
 */
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";
import { LRUCache } from "lru-cache";
import type { DatabaseLocation } from "./database-url.js";
import { ensurePrivateDirectory, ensurePrivateFile } from "./private-files.js";
import type { Database } from "./schema.js";
import { type CheckpointThread, checkpointInBackground } from "./sqlite-checkpoints.js";

/** Connections per instance; several instances share the server's max_connections. */
const POSTGRES_POOL_SIZE = 10;
/** How long a SQLite writer waits for another process's lock before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 5000;
/** Distinct SQL texts whose compiled SQLite statements are kept. */
const SQLITE_STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query it runs, and better-sqlite3 compiles the SQL on every
 * prepare, which costs several times what running a small query does. Statements are
 * re-used by their SQL text instead. Safe because Kysely runs one query at a time on
 * its single SQLite connection.
 */
function withStatementCache(
  database: BetterSqlite3.Database,
  checkpoints?: CheckpointThread,
): SqliteDatabase {
  const statements = new LRUCache<string, SqliteStatement>({ max: SQLITE_STATEMENT_CACHE_SIZE });
  return {
    close: () => {
      checkpoints?.stop();
      database.close();
    },
    prepare(text) {
      let statement = statements.get(text);
      if (!statement) {
        const prepared = database.prepare(text);
        statement = checkpoints ? checkpoints.counted(prepared) : prepared;
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
  let checkpoints: CheckpointThread | undefined;
  if (options.checkpointInBackground && location.path !== ":memory:") {
    checkpoints = checkpointInBackground(database, onIdleError);
  }
  return new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(database, checkpoints) }),
  });
}
