/** Opens the repository layer for a DATABASE_URL (SPEC §8). Call `migrate()` before use. */
import { openDatabase } from "./database.js";
import { parseDatabaseUrl } from "./database-url.js";
import { createKyselyStore } from "./kysely-store.js";
import type { Store } from "./types.js";

export { InvalidPlanError, PlanExistsError, UnknownPlanError } from "./errors.js";
export { type QuotaPeriod, quotaPeriod } from "./quota-period.js";
export type {
  ApiKey,
  AuthenticatedKey,
  Authorization,
  Plan,
  QuotaState,
  Store,
  StoredRecord,
} from "./types.js";

export interface StoreOptions {
  /** About how many recently checked domains are kept; default 1000. */
  recentCapacity?: number;
  /** Directory relative SQLite paths resolve against; default the process's working directory. */
  cwd?: string;
}

/**
 * `null` → SQLite at `./data/mailrisk.db` (directory created); `sqlite:PATH`;
 * `sqlite::memory:` (private, for tests); `postgres://…`. Does not migrate.
 */
export async function openStore(databaseUrl: string | null, options: StoreOptions = {}): Promise<Store> {
  const db = await openDatabase(parseDatabaseUrl(databaseUrl, options.cwd ?? process.cwd()));
  return createKyselyStore(db, { recentCapacity: options.recentCapacity ?? 1000 });
}
