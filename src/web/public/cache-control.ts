/**
 * How long a page may be kept by a browser or a shared cache (docs/api.md "Result pages"). Pages hold
 * nothing of one visitor (no cookie, no key), so the home page and a result page may be
 * shared for a minute; an answer made while DNS failed for the time being, and every
 * error page, is not kept: the next request should try again.
 */
import { isTemporaryFailure, type VerdictStatus } from "../../core/verdict.js";

/** The home page and a settled result page. */
export const SHARED_FOR_A_MINUTE = "public, max-age=60";

/** Error pages, and a result page whose DNS look-up failed for the time being. */
export const NOT_KEPT = "no-store";

export function resultPageCacheControl(status: VerdictStatus): string {
  return isTemporaryFailure(status) ? NOT_KEPT : SHARED_FOR_A_MINUTE;
}
