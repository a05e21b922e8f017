/** What the admin routes receive. */
import type { ListSource } from "../../config-table.js";
import type { Checker } from "../../service/checker.js";
import type { Store } from "../../store/types.js";

/** The slice of the store the admin API uses. */
export interface AdminStore {
  keys: Pick<
    Store["keys"],
    "listKeys" | "createKey" | "getKey" | "revokeKey" | "setKeyPlan" | "setKeyOrigins"
  >;
  plans: Pick<Store["plans"], "listPlans" | "createPlan" | "updatePlan">;
  usage: Pick<Store["usage"], "keyUsage">;
  records: Pick<Store["records"], "purgeRecords" | "purgeAllRecords">;
  overrides: Store["overrides"];
  reports: Store["reports"];
  lists: Store["lists"];
  locks: Store["locks"];
  webhooks: Store["webhooks"];
}

export interface AdminDeps {
  store: AdminStore;
  clock: () => Date;
  /** Resolves once every change made so far holds on this server (src/service/change-watcher.ts). */
  settle: () => Promise<void>;
  /** Today's answers for the report queue's domains. */
  checker: Pick<Checker, "check">;
  /** LIST_SOURCES. */
  listSources: readonly ListSource[];
  /** LIST_MAX_ENTRIES. */
  listMaxEntries: number;
}
