/** What the admin routes receive. */
import type { Config } from "../../config.js";
import type { LinkContext } from "../../operator/accounts.js";
import type { Checker } from "../../service/checking/checker.js";
import type { Store } from "../../store/index.js";

/** The slice of the store the admin API's services use. */
export type AdminStore = Pick<
  Store,
  | "keys"
  | "plans"
  | "usage"
  | "records"
  | "overrides"
  | "reports"
  | "lists"
  | "locks"
  | "webhooks"
  | "audit"
  | "transaction"
  | "accounts"
  | "accountLists"
  | "jobs"
  | "twoFactor"
  | "traffic"
>;

export interface AdminDeps
  extends Pick<Config, "listSources" | "listMaxEntries" | "testNames" | "jobRetentionSeconds"> {
  store: AdminStore;
  clock: () => Date;
  /** Resolves once every change made so far holds on this server (src/service/checking/change-watcher.ts): before a change's answer. */
  settle: () => Promise<void>;
  /** Today's answers for the report queue's domains. */
  checker: Pick<Checker, "check">;
  /** Where invitation and reset links point, and the mailer that sends them. */
  links: LinkContext;
  /** Writes what this server counted of the traffic so far (its next read sees it at once). */
  flushTraffic: () => Promise<void>;
}
