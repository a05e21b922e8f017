/** What the checking routes receive: the usage slice of the store, the checker, metrics and the clock. */
import type { AccessDeps } from "./access.js";
import type { RunCheckDeps } from "./run-check.js";

export interface CheckingDeps extends AccessDeps, RunCheckDeps {}
