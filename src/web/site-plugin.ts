/**
 * The site plugin (docs/architecture.md "The site", docs/api.md "Result pages"): the HTML
 * side of the service, encapsulated so its error and not-found handlers answer HTML
 * pages rather than problem JSON, and its security headers and page limiter
 * (page-protection.ts) touch no API route. No
 * key and no quota: the checking plugin's hooks never run here. The home page shares
 * `GET /` with the gateway route through the `homePage` constraint.
 *
 *   GET  /                  home page (browsers only)
 *   GET  /domain/<domain>   result page; a name that is not in its normal form (upper
 *                           case, trailing dot, Unicode, an email address) is
 *                           redirected (301) to the normal form's page
 *   POST /domain/           the search form: field `q`, an email address or a domain;
 *                           303 to the domain's page, so no address lands in a URL
 *   GET  /domain/           303 to the home page
 *   /console…               the operator's desk (src/web/desk/), when the server has one
 *
 * A result page checks through the same record cache as the API (a fresh record is
 * answered as is). A domain that does not exist gets its page with status 404.
 */
import fastifyCookie from "@fastify/cookie";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.js";
import { parseInput } from "../core/input.js";
import type { NameRules } from "../core/reserved-names.js";
import { subscriberOf } from "../http/client-networks.js";
import { HttpProblem } from "../http/http-problem.js";
import { withMethodNotAllowed } from "../http/method-not-allowed.js";
import { problemFor } from "../http/problem-response.js";
import { checkParsed, type RunCheckDeps } from "../http/run-check.js";
import type { TypedApp } from "../http/typed-app.js";
import { type PageProblem, renderErrorPage } from "../page-kit/error-page.js";
import { domainPath, type Signup, sendPage } from "../page-kit/layout.js";
import type { RecentRepository } from "../store/index.js";
import { type DeskDeps, type DeskStore, deskPlugin } from "./desk/desk-plugin.js";
import type { OperatorAccess } from "./desk/operator-access.js";
import { type AccountPagesDeps, accountPages } from "./member/account-pages.js";
import { operatorSessions } from "./member/operator-sessions.js";
import { pageSession } from "./member/page-session.js";
import { PREFIX_FACTOR } from "./page-limiter.js";
import { exampleBaseUrl } from "./public/api-examples.js";
import { NOT_KEPT, resultPageCacheControl, SHARED_FOR_A_MINUTE } from "./public/cache-control.js";
import { isNonExistent, renderDomainPage } from "./public/domain.js";
import { renderHomePage } from "./public/home.js";

export { homePageConstraint } from "./public/home-page-constraint.js";
export type { AccountPagesDeps, DeskStore, OperatorAccess };

import { protectPages, TooManyPageRequests } from "./page-protection.js";

/** How many recently checked domains a page lists. */
const RECENT_SHOWN = 12;

export interface SiteDeps extends RunCheckDeps {
  recent: Pick<RecentRepository, "listRecent">;
  /** The page limits (4 × PAGE_RATE_LIMIT per /24 or /64 prefix) and the API examples' base (null: `$MAILRISK_URL`). */
  config: Pick<Config, "pageRateLimit" | "pageGlobalRateLimit" | "publicUrl">;
  /**
   * The operator's desk under /console; absent: none (a 404). Who the operator is comes
   * from `access`, by default from the accounts' sessions (no accounts, no access: none).
   */
  desk?: (Omit<DeskDeps, "access"> & { access?: OperatorAccess | undefined }) | undefined;
  /** The pages for people (sign-up, log-in, the account's pages); absent (SIGNUP=off): none. */
  accounts?: AccountPagesDeps;
}

function sendErrorPage(reply: FastifyReply, problem: PageProblem & { headers?: Record<string, string> }) {
  return sendPage(
    reply.headers(problem.headers ?? {}).header("cache-control", NOT_KEPT),
    renderErrorPage(problem),
    problem.status,
  );
}

/** Whether a URL is under the result pages' prefix (for answers given before routing). */
export function isResultPageUrl(url: string): boolean {
  return /^\/domain(?:[/?]|$)/.test(url);
}

async function recentDomains(deps: SiteDeps): Promise<string[]> {
  return (await deps.recent.listRecent(RECENT_SHOWN)).map((entry) => entry.domain);
}

function firstString(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The search form's input, or the path's: the domain to show, or the 400 problem. */
function domainOf(raw: string, rules: NameRules): string {
  const parsed = parseInput(raw, rules);
  if (!parsed.ok) throw new HttpProblem(parsed.problem.code, parsed.problem.detail);
  return parsed.input.domain;
}

function resultRoutes(results: TypedApp, deps: SiteDeps): void {
  results.get("/", { schema: { hide: true } }, async (_request, reply) => reply.redirect("/", 303));

  results.post("/", { schema: { hide: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const query = firstString(body.q).trim();
    if (query === "") return reply.redirect("/", 303);
    return reply.redirect(domainPath(domainOf(query, deps)), 303);
  });

  results.get<{ Params: { domain: string } }>(
    "/:domain",
    { schema: { hide: true } },
    async (request: FastifyRequest<{ Params: { domain: string } }>, reply) => {
      const raw = request.params.domain;
      const domain = domainOf(raw, deps);
      if (domain !== raw) return reply.redirect(domainPath(domain), 301);
      const result = await checkParsed(
        deps,
        request,
        { kind: "domain", domain, localPart: null },
        { budget: "pages", client: subscriberOf(request.ip) },
      );
      const { record } = result;
      deps.traffic.count("pages", record);
      const page = renderDomainPage({
        record,
        evidence: result.explain?.() ?? [],
        recent: await recentDomains(deps),
        baseUrl: exampleBaseUrl(deps.config.publicUrl),
        signup: signupOf(deps),
      });
      return sendPage(
        reply.header("cache-control", resultPageCacheControl(result.status)),
        page,
        isNonExistent(record) ? 404 : 200,
      );
    },
  );
}

/** Who may get an account here: SIGNUP where the account pages are served, else `off`. */
function signupOf(deps: SiteDeps): Signup {
  return deps.accounts?.config.signup ?? "off";
}

export async function sitePlugin(app: TypedApp, deps: SiteDeps): Promise<void> {
  app.setErrorHandler((error, request, reply) =>
    sendErrorPage(reply, error instanceof TooManyPageRequests ? error : problemFor(error, request.log)),
  );
  // Cookies (the session's, the forms' token) are read by @fastify/cookie, in this scope only:
  // a malformed one (`_ga=100%`) is left undecoded, never an error.
  await app.register(fastifyCookie, { hook: "onRequest" });
  await protectPages(app, {
    perAddress: deps.config.pageRateLimit,
    perPrefix: deps.config.pageRateLimit * PREFIX_FACTOR,
    global: deps.config.pageGlobalRateLimit,
  });

  await withMethodNotAllowed(app, (pages) => {
    pages.get("/", { constraints: { homePage: "yes" }, schema: { hide: true } }, async (_request, reply) => {
      const page = renderHomePage({
        recent: await recentDomains(deps),
        baseUrl: exampleBaseUrl(deps.config.publicUrl),
        signup: signupOf(deps),
      });
      return sendPage(reply.headers({ vary: "Accept", "cache-control": SHARED_FOR_A_MINUTE }), page);
    });
  });

  await app.register(
    async (results) => {
      results.setNotFoundHandler((_request, reply) =>
        sendErrorPage(reply, new HttpProblem("not_found", "There is no page at this address.")),
      );
      await withMethodNotAllowed(results, () => resultRoutes(results, deps));
    },
    { prefix: "/domain" },
  );
  const { desk, accounts } = deps;
  const access = desk?.access ?? (accounts && operatorSessions(pageSession(accounts)));
  if (desk && access)
    await app.register((scope) => deskPlugin(scope, { ...desk, access }), { prefix: "/console" });
  if (accounts) await withMethodNotAllowed(app, (pages) => accountPages(pages, accounts));
}
