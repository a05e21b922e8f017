/** The Store over one Kysely instance: the same SQL for SQLite and PostgreSQL. */
import { type Kysely, sql } from "kysely";
import { createAuthorize } from "./authorization.js";
import * as keys from "./keys.js";
import { migrateToLatest } from "./migrate.js";
import * as plans from "./plans.js";
import * as quota from "./quota.js";
import * as recent from "./recent.js";
import * as records from "./records.js";
import type { Database } from "./schema.js";
import type { Store } from "./types.js";

export interface KyselyStoreOptions {
  /** About how many recently checked domains are kept. */
  recentCapacity: number;
}

export function createKyselyStore(db: Kysely<Database>, options: KyselyStoreOptions): Store {
  // Pruning after every tenth of the capacity keeps the table between capacity and 1.1 × capacity.
  const pruneEvery = Math.max(1, Math.ceil(options.recentCapacity / 10));
  let addsSincePrune = 0;

  return {
    migrate: () => migrateToLatest(db),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),

    createPlan: (plan) => plans.createPlan(db, plan, new Date()),
    listPlans: () => plans.listPlans(db),

    createKey: (input) => keys.createKey(db, input),
    listKeys: () => keys.listKeys(db),
    revokeKey: (id, now) => keys.revokeKey(db, id, now),
    countKeys: () => keys.countKeys(db),
    authenticate: (secret) => keys.authenticate(db, secret),
    authorize: createAuthorize(db),

    consumeQuota: (key, now) => quota.consumeQuota(db, key, now),
    refundQuota: (key, periodStart) => quota.refundQuota(db, key, periodStart),

    getRecord: (domain) => records.getRecord(db, domain),
    saveRecord: (record, checkedAt) => records.saveRecord(db, record, checkedAt),

    addRecent: async (domain, at) => {
      await recent.addRecent(db, domain, at);
      addsSincePrune += 1;
      if (addsSincePrune >= pruneEvery) {
        addsSincePrune = 0;
        await recent.pruneRecent(db, options.recentCapacity);
      }
    },
    listRecent: (limit) => recent.listRecent(db, limit),
  };
}
