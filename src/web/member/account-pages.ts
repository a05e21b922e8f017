/**
 * The pages for people (docs/accounts.md): sign-up, confirmation, log-in, log-out, reset,
 * the invitation link, and the account's own pages. Registered inside the site plugin, so
 * its CSP, page limiter and HTML error pages hold here too; only when SIGNUP is not `off`.
 *
 * Every POST carries a CSRF token and a same-origin `Origin` (else 403 `csrf_failed`,
 * nothing changed): a logged-in form the session's token, the others the token of the
 * `mailrisk_csrf` cookie (double submit).
 */
import type { TypedApp } from "../../http/typed-app.js";
import { jobPages } from "./job-pages.js";
import { keyConfirmPages } from "./key-confirm-pages.js";
import { listPages } from "./list-pages.js";
import { overviewPages } from "./overview-pages.js";
import { type AccountPagesDeps, pageSession } from "./page-session.js";
import { personPages } from "./person-pages.js";
import { twoFactorPages } from "./two-factor-pages.js";

export type { AccountPagesDeps } from "./page-session.js";

export async function accountPages(app: TypedApp, deps: AccountPagesDeps): Promise<void> {
  const pages = pageSession(deps);
  personPages(app, deps, pages);
  twoFactorPages(app, deps, pages);
  overviewPages(app, deps, pages);
  keyConfirmPages(app, deps, pages);
  listPages(app, deps, pages);
  // Its own scope (the upload's body is a stream); awaited, so the 405 routes cover its paths too.
  await app.register(async (jobs) => jobPages(jobs, deps, pages));
}
