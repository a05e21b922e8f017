/** The Store over one Kysely instance: the same SQL for SQLite and PostgreSQL. */
import type { Kysely } from "kysely";
import { createAccountListsRepository } from "./account-lists-repository.js";
import { createAccountsRepository } from "./accounts-repository.js";
import { createAuditRepository } from "./audit-repository.js";
import { createChangesRepository, raisingWithChange } from "./changes.js";
import { StoreUnavailableError } from "./errors.js";
import { createHousekeepingRepository } from "./housekeeping-repository.js";
import { createInfrastructureRepository } from "./infrastructure-repository.js";
import { createJobsRepository } from "./jobs-repository.js";
import { createKeysRepository } from "./keys-repository.js";
import { createListsRepository } from "./lists-repository.js";
import { createLocksRepository } from "./locks-repository.js";
import { createLoginThrottleRepository } from "./login-throttle-repository.js";
import { migrateToLatest } from "./migrate.js";
import { createOverridesRepository } from "./overrides-repository.js";
import { createPlansRepository } from "./plans-repository.js";
import { createRecentRepository } from "./recent-repository.js";
import { createRecordsRepository } from "./records-repository.js";
import { createReportsRepository } from "./reports-repository.js";
import type { Database } from "./schema.js";
import { createTrafficRepository } from "./traffic-repository.js";
import { createTwoFactorRepository } from "./two-factor-repository.js";
import type { Store } from "./types.js";
import { translateStoreErrors } from "./unavailable.js";
import { createUsageRepository } from "./usage-repository.js";
import { createWebhooksRepository } from "./webhooks-repository.js";

export interface KyselyStoreOptions {
  /** About how many recently checked domains are kept. */
  recentCapacity: number;
}

/** Every repository and `migrate` raise `StoreUnavailableError` for driver failures (unavailable.ts); `ping` for any failure. */
export function createKyselyStore(db: Kysely<Database>, options: KyselyStoreOptions): Store {
  const { migrate } = translateStoreErrors({ migrate: () => migrateToLatest(db) });
  // A write, not `select 1`: a database that answers reads but refuses writes (a SQLite
  // file locked by another process, or read-only) cannot count a request either. Any
  // failure of the probe means "not ready", a schema not migrated yet included.
  const ping = async () => {
    const probedAt = Date.now();
    try {
      await db
        .insertInto("readiness_probe")
        .values({ id: 1, probed_at: probedAt })
        .onConflict((oc) => oc.column("id").doUpdateSet({ probed_at: probedAt }))
        .execute();
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  };
  const { forgetKeys, ...usage } = createUsageRepository(db);
  const changes = translateStoreErrors(createChangesRepository(db));
  // Every change that servers remember something of raises its topic of the change signal.
  const plans = raisingWithChange(db, createPlansRepository, ["updatePlan"], "keys");
  const keys = raisingWithChange(
    db,
    createKeysRepository,
    ["revokeKey", "rollKey", "setKeyPlan", "setKeyOrigins"],
    "keys",
  );
  const overrides = raisingWithChange(
    db,
    createOverridesRepository,
    ["setOverride", "removeOverride"],
    "overrides",
  );
  const records = raisingWithChange(
    db,
    createRecordsRepository,
    ["purgeRecords", "purgeAllRecords"],
    "records",
  );
  const lists = raisingWithChange(
    db,
    createListsRepository,
    ["acceptVersion", "rollback", "setPolicy", "removeSource"],
    "lists",
  );
  // A suspension, a new plan or a deletion drops the remembered keys of every server (their 401 or quota at once).
  const accounts = raisingWithChange(
    db,
    createAccountsRepository,
    ["setState", "setPlan", "deleteAccount"],
    "keys",
  );
  // A change of an account's list reloads that list alone on every server (its version says which).
  const accountLists = raisingWithChange(
    db,
    createAccountListsRepository,
    ["setEntry", "removeEntry", "importEntries"],
    "account_lists",
  );
  return {
    accounts: translateStoreErrors(accounts),
    plans: translateStoreErrors(plans),
    keys: translateStoreErrors(keys),
    usage: translateStoreErrors(usage),
    records: translateStoreErrors(records),
    recent: translateStoreErrors(createRecentRepository(db, options.recentCapacity)),
    housekeeping: translateStoreErrors(createHousekeepingRepository(db)),
    infrastructure: translateStoreErrors(createInfrastructureRepository(db)),
    overrides: translateStoreErrors(overrides),
    reports: translateStoreErrors(createReportsRepository(db)),
    changes,
    lists: translateStoreErrors(lists),
    locks: translateStoreErrors(createLocksRepository(db)),
    webhooks: translateStoreErrors(createWebhooksRepository(db)),
    audit: translateStoreErrors(createAuditRepository(db)),
    ...translateStoreErrors({
      transaction: <T>(work: (store: Store) => Promise<T>) =>
        db.transaction().execute((trx) => work(createKyselyStore(trx, options))),
    }),
    jobs: translateStoreErrors(createJobsRepository(db)),
    accountLists: translateStoreErrors(accountLists),
    loginThrottle: translateStoreErrors(createLoginThrottleRepository(db)),
    twoFactor: translateStoreErrors(createTwoFactorRepository(db)),
    traffic: translateStoreErrors(createTrafficRepository(db)),
    migrate,
    ping,
    forgetKeys,
    async close() {
      // The requests per day counted since the last flush; lost when the database is gone.
      await usage.flushDailyUsage().catch(() => undefined);
      // Give-backs still waiting for the database: a last try, else their units stay counted.
      await usage.settleQuota().catch(() => undefined);
      await db.destroy();
    },
  };
}
