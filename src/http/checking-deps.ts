/** What the checking routes receive: the usage slice of the store, the checker, metrics, the clock and the prepared answers. */
import type { AccessDeps } from "./access.js";
import type { CheckingAnswers } from "./answer-bytes.js";
import type { RunCheckDeps } from "./run-check.js";

export interface CheckingDeps extends AccessDeps, RunCheckDeps {
  /** The cached routes' prepared answers (shared with the fast path, checking-fast-path.ts). */
  answers: CheckingAnswers;
}
