/**
 * The store as a whole (docs/api.md "Keys, plans, quotas", "Storage and caching"): the
 * repositories `openStore` returns, one per table group, each declared beside its
 * implementation in `<entity>-types.ts`. Implemented with Kysely over SQLite
 * (better-sqlite3) and PostgreSQL (pg); same schema, same migrations.
 */

import type { AccountListsRepository } from "./account-lists-types.js";
import type { AccountsRepository } from "./accounts-types.js";
import type { AuditRepository } from "./audit-types.js";
import type { ChangesRepository } from "./changes-types.js";
import type { HousekeepingRepository } from "./housekeeping-types.js";
import type { InfrastructureRepository } from "./infrastructure-types.js";
import type { JobsRepository } from "./jobs-types.js";
import type { KeysRepository } from "./keys-types.js";
import type { ListsRepository } from "./lists-types.js";
import type { LocksRepository } from "./locks-types.js";
import type { LoginThrottleRepository } from "./login-throttle-types.js";
import type { OverridesRepository } from "./overrides-types.js";
import type { PlansRepository } from "./plans-types.js";
import type { RecentRepository } from "./recent-types.js";
import type { RecordsRepository } from "./records-types.js";
import type { ReportsRepository } from "./reports-types.js";
import type { TrafficRepository } from "./traffic-types.js";
import type { TwoFactorRepository } from "./two-factor-types.js";
import type { UsageRepository } from "./usage-types.js";
import type { WebhooksRepository } from "./webhooks-types.js";

/**
 * What `openStore` returns: one repository per table group plus the database's own
 * life cycle. Consumers take only the slice they use (e.g. HTTP `usage` and `ping`, the
 * record cache `records` and `recent`, the keys command `keys` and `plans`). Every
 * method rejects with `StoreUnavailableError` when the database cannot be reached.
 */
export interface Store {
  plans: PlansRepository;
  keys: KeysRepository;
  usage: UsageRepository;
  records: RecordsRepository;
  recent: RecentRepository;
  housekeeping: HousekeepingRepository;
  infrastructure: InfrastructureRepository;
  overrides: OverridesRepository;
  changes: ChangesRepository;
  reports: ReportsRepository;
  lists: ListsRepository;
  locks: LocksRepository;
  webhooks: WebhooksRepository;
  audit: AuditRepository;
  /**
   * Runs `work` on a store whose writes all commit together or not at all (an operator's
   * change with its audit entry); no network in `work`: it holds the database's lock.
   */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  accounts: AccountsRepository;
  jobs: JobsRepository;
  accountLists: AccountListsRepository;
  loginThrottle: LoginThrottleRepository;
  twoFactor: TwoFactorRepository;
  traffic: TrafficRepository;
  /** Applies pending migrations; returns the names of those applied by this call. */
  migrate(): Promise<string[]>;
  /** Rejects when the database is unreachable or refuses writes (one tiny write to `readiness_probe`). */
  ping(): Promise<void>;
  /**
   * Forgets the keys this process remembers (usage.ts): the next request of each reads its
   * key and plan again. Called when the change signal says keys or plans changed.
   */
  forgetKeys(): void;
  close(): Promise<void>;
}
