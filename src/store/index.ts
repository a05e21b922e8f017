/**
 * Opens the repository layer for a DATABASE_URL (docs/api.md "Storage and caching"). Call
 * `migrate()` before use. The store's door for the rest of the code: every repository's
 * types, re-exported from its `<entity>-types.ts`; adapters take nothing else at run time.
 */
import { openDatabase } from "./database.js";
import type { DatabaseLocation } from "./database-url.js";
import { createKyselyStore } from "./kysely-store.js";
import type { Store } from "./types.js";
import { toStoreError } from "./unavailable.js";

export type * from "./account-lists-types.js";
export type * from "./accounts-types.js";
export type * from "./audit-types.js";
export type * from "./changes-types.js";
export { type DatabaseLocation, describeDatabase } from "./database-url.js";
export { StoreUnavailableError } from "./errors.js";
export type * from "./housekeeping-types.js";
export type * from "./infrastructure-types.js";
export type * from "./jobs-types.js";
export type * from "./keys-types.js";
export type * from "./lists-types.js";
export type * from "./locks-types.js";
export type * from "./login-throttle-types.js";
export type * from "./overrides-types.js";
export type * from "./plans-types.js";
export type * from "./recent-types.js";
export type * from "./records-types.js";
export type * from "./reports-types.js";
export type * from "./traffic-types.js";
export type * from "./two-factor-types.js";
export type { Store } from "./types.js";
export type * from "./usage-types.js";
export type * from "./webhooks-types.js";

export interface StoreOptions {
  /** About how many recently checked domains are kept; default 1000. */
  recentCapacity?: number;
  /**
   * Receives the database errors that belong to no call (a pooled PostgreSQL connection
   * broke while idle); the server logs them. Default: a process warning on stderr.
   */
  onIdleError?: (error: Error) => void;
  /** SQLite: checkpoint the write-ahead log in a thread of its own, not in the commits (the server). */
  checkpointInBackground?: boolean;
}

function warnIdleError(error: Error): void {
  process.emitWarning(`database connection error: ${error.message}`, "StoreIdleError");
}

/**
 * Opens the store at a location parsed from DATABASE_URL (`config.database`); tests
 * pass `{ dialect: "sqlite", path: ":memory:" }` for a private database. Does not migrate.
 */
export async function openStore(location: DatabaseLocation, options: StoreOptions = {}): Promise<Store> {
  let db: Awaited<ReturnType<typeof openDatabase>>;
  try {
    db = await openDatabase(location, options.onIdleError ?? warnIdleError, {
      checkpointInBackground: options.checkpointInBackground,
    });
  } catch (error) {
    throw toStoreError(error);
  }
  return createKyselyStore(db, { recentCapacity: options.recentCapacity ?? 1000 });
}
