/** The Store over one Kysely instance: the same SQL for SQLite and PostgreSQL. */
import { type Kysely, sql } from "kysely";
import { createKeysRepository } from "./keys.js";
import { migrateToLatest } from "./migrate.js";
import { createPlansRepository } from "./plans.js";
import { createRecentRepository } from "./recent.js";
import { createRecordsRepository } from "./records.js";
import type { Database } from "./schema.js";
import type { Store } from "./types.js";
import { translateStoreErrors } from "./unavailable.js";
import { createUsageRepository } from "./usage.js";

export interface KyselyStoreOptions {
  /** About how many recently checked domains are kept. */
  recentCapacity: number;
}

/** Every repository and `migrate`/`ping` raise `StoreUnavailableError` for driver failures (unavailable.ts). */
export function createKyselyStore(db: Kysely<Database>, options: KyselyStoreOptions): Store {
  const { migrate, ping } = translateStoreErrors({
    migrate: () => migrateToLatest(db),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
  });
  return {
    plans: translateStoreErrors(createPlansRepository(db)),
    keys: translateStoreErrors(createKeysRepository(db)),
    usage: translateStoreErrors(createUsageRepository(db)),
    records: translateStoreErrors(createRecordsRepository(db)),
    recent: translateStoreErrors(createRecentRepository(db, options.recentCapacity)),
    migrate,
    ping,
    close: () => db.destroy(),
  };
}
