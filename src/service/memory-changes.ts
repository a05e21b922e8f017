/**
 * What an operator changes through the admin API that a server holds in memory
 * (docs/api.md §10): the keys it remembers (a key moved to another plan, a plan's quota
 * or period changed), the records it remembers (a purge), and the overrides its checks
 * see. The server that takes the change applies it at once, every worker of
 * `serve --workers N` included (cluster-changes.ts); other servers sharing the database
 * take it within 30 s.
 */
import type { Store } from "../store/types.js";
import type { Checker } from "./checker.js";

export type MemoryChange =
  | { kind: "keys" }
  | { kind: "records"; domains: readonly string[] | "all" }
  | { kind: "overrides" };

/** Applies a change here (and, in a cluster's worker, in the other workers too). */
export type AnnounceChange = (change: MemoryChange) => Promise<void>;

export interface MemoryHolders {
  checker: Pick<Checker, "forgetRecords" | "reloadOverrides">;
  store: Pick<Store, "forgetKeys">;
}

/** Applies a change to this process's memory; never rejects (a failed overrides reload is logged and retried). */
export async function applyMemoryChange(holders: MemoryHolders, change: MemoryChange): Promise<void> {
  if (change.kind === "keys") holders.store.forgetKeys();
  else if (change.kind === "records") holders.checker.forgetRecords?.(change.domains);
  else await holders.checker.reloadOverrides?.();
}
