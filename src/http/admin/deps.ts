/** What the admin routes receive. */
import type { AnnounceChange } from "../../service/memory-changes.js";
import type { Store } from "../../store/types.js";

/** The slice of the store the admin API uses. */
export interface AdminStore {
  keys: Pick<Store["keys"], "listKeys" | "createKey" | "getKey" | "revokeKey" | "setKeyPlan">;
  plans: Pick<Store["plans"], "listPlans" | "createPlan" | "updatePlan">;
  usage: Pick<Store["usage"], "keyUsage">;
  records: Pick<Store["records"], "purgeRecords" | "purgeAllRecords">;
  overrides: Store["overrides"];
  infrastructure: Pick<Store["infrastructure"], "domainsOn">;
  forgetKeys: Store["forgetKeys"];
}

export interface AdminDeps {
  store: AdminStore;
  clock: () => Date;
  /** Tells this server's memory of a change made here, so that it applies here at once. */
  announce: AnnounceChange;
}
