/**
 * The operator's desk under /console (docs/console.md "The operator's desk"): a third
 * thin surface over the operator services, beside the CLI and the admin API. Registered
 * inside the site plugin (its security headers and page limiter), only when the server
 * has an `OperatorAccess`; anyone but an operator gets a 404, a POST without its CSRF
 * token a 403 `csrf_failed`, both before anything is read or changed. Every change
 * is made as `{ kind: "account", email }` and answered with a 303 back to its page.
 */
import { Type } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../config.js";
import { HttpProblem } from "../../http/http-problem.js";
import { withMethodNotAllowed } from "../../http/method-not-allowed.js";
import { problemFor, sendProblem } from "../../http/problem-response.js";
import type { TypedApp } from "../../http/typed-app.js";
import {
  AccountPlanBody,
  AccountSearchFields,
  inviteAccount,
  type LinkContext,
  listAccounts,
  MAX_ACCOUNTS_SHOWN,
  setAccountPlan,
  setAccountState,
} from "../../operator/accounts.js";
import { type AuditFilter, AuditSearchFields, searchAudit } from "../../operator/audit.js";
import { listStatus, rollback } from "../../operator/lists.js";
import {
  listOverrides,
  OverrideBody,
  OverrideTargetBody,
  removeOverride,
  setOverride,
} from "../../operator/overrides.js";
import { listPlans, updatePlan } from "../../operator/plans.js";
import { refusalOf } from "../../operator/refusal.js";
import {
  MAX_REPORTS_SHOWN,
  openReportCount,
  ReviewBody,
  reportQueue,
  reviewReport,
} from "../../operator/reports.js";
import { trafficStats } from "../../operator/stats.js";
import { deliveries, listWebhooks } from "../../operator/webhooks.js";
import type { Html } from "../../page-kit/html.js";
import { sendPage } from "../../page-kit/layout.js";
import type { Checker } from "../../service/checking/checker.js";
import type { Store } from "../../store/index.js";
import { TooManyPageRequests } from "../page-protection.js";
import {
  type DeskContext,
  type DeskPath,
  renderAccounts,
  renderAudit,
  renderInvited,
  renderLists,
  renderOverrides,
  renderOverview,
  renderPlans,
  renderReports,
  renderWebhooks,
} from "./desk-views.js";
import type { Operator, OperatorAccess } from "./operator-access.js";

/** Deliveries the webhooks page shows. */
const DELIVERIES_SHOWN = 20;

export type DeskStore = Pick<
  Store,
  | "audit"
  | "reports"
  | "overrides"
  | "plans"
  | "lists"
  | "webhooks"
  | "accounts"
  | "keys"
  | "transaction"
  | "traffic"
>;

export interface DeskDeps extends Pick<Config, "listSources" | "testNames"> {
  access: OperatorAccess;
  store: DeskStore;
  /** Today's answers for the report queue, and the resolver's state. */
  checker: Pick<Checker, "check" | "resolverHealth">;
  clock: () => Date;
  /** Resolves once every change made so far holds on this server. */
  settle: () => Promise<void>;
  /** Where invitation links point, and the mailer that sends them. */
  links: LinkContext;
  /** Writes what this server counted of the traffic so far, before the overview reads it. */
  flushTraffic: () => Promise<void>;
}

const Csrf = { csrf: Type.String() };
const ReviewForm = Type.Object({ ...Csrf, ...ReviewBody.properties });
const OverrideForm = Type.Object({ ...Csrf, ...OverrideBody.properties });
const RemoveForm = Type.Object({ ...Csrf, ...OverrideTargetBody.properties });
const QuotaForm = Type.Object({ ...Csrf, quota: Type.String({ pattern: "^[0-9]{1,10}$" }) });
const RollbackForm = Type.Object({ ...Csrf, source: Type.String({ minLength: 1 }) });
const AuditQuery = Type.Object(AuditSearchFields);
const AccountsQuery = Type.Object(AccountSearchFields);
const AccountParams = Type.Object({ id: Type.String() });
const AccountForm = Type.Object({ ...Csrf, ...AccountSearchFields });
const AccountPlanForm = Type.Object({ ...Csrf, ...AccountSearchFields, ...AccountPlanBody.properties });
const InviteForm = Type.Object({
  ...Csrf,
  email: Type.String({ maxLength: 254 }),
  plan: AccountPlanBody.properties.plan,
  operator: Type.Optional(Type.Literal("on")),
});

/** The accounts page, with the search it showed kept. */
function accountsPage(search: string | undefined): string {
  return search?.trim()
    ? `/console/accounts?search=${encodeURIComponent(search.trim())}`
    : "/console/accounts";
}

/** A refusal of a service as the problem it is; anything else as the pages answer it. */
function consoleProblem(error: unknown, request: FastifyRequest): HttpProblem {
  // The pages' limiter runs before the desk's routes: its refusal is a 429 (503), never a 500.
  if (error instanceof TooManyPageRequests)
    return new HttpProblem(
      error.status === 429 ? "rate_limited" : "server_busy",
      error.detail,
      error.headers,
    );
  const refusal = refusalOf(error);
  if (refusal) return new HttpProblem(refusal.code, refusal.message);
  if ((error as { validation?: unknown } | null)?.validation)
    return new HttpProblem("invalid_body", `The form does not fit: ${(error as Error).message}.`);
  return problemFor(error, request.log);
}

export async function deskPlugin(app: TypedApp, deps: DeskDeps): Promise<void> {
  const { access, store, checker, clock } = deps;
  const operators = new WeakMap<FastifyRequest, Operator>();
  app.setErrorHandler((error, request, reply) => sendProblem(reply, consoleProblem(error, request)));
  app.setNotFoundHandler((_request, reply) =>
    sendProblem(reply, new HttpProblem("not_found", "There is no page at this address.")),
  );
  // Before the body is validated: who asks decides whether there is anything here at all.
  app.addHook("preValidation", async (request) => {
    const operator = await access.operatorOf(request);
    if (!operator) throw new HttpProblem("not_found", "There is no page at this address.");
    if (request.method === "POST" && !(await access.checkCsrf(request)))
      throw new HttpProblem(
        "csrf_failed",
        "The form's CSRF token is missing or wrong; reload the page and try again.",
      );
    operators.set(request, operator);
  });

  const actorOf = (request: FastifyRequest) => ({
    kind: "account" as const,
    email: operatorOf(request).email,
  });
  const operatorOf = (request: FastifyRequest) => operators.get(request) as Operator;
  const contextOf = async (request: FastifyRequest): Promise<DeskContext> => ({
    email: operatorOf(request).email,
    csrf: await access.csrfTokenOf(request),
  });
  const page = (reply: FastifyReply, html: Html, status = 200) =>
    sendPage(reply.header("cache-control", "no-store"), html, status);
  const backTo = (reply: FastifyReply, path: DeskPath) => reply.redirect(path, 303);

  await withMethodNotAllowed(app, (desk) => {
    desk.get("/", { schema: { hide: true } }, async (request, reply) => {
      await deps.flushTraffic();
      const [lists, openReports, traffic] = await Promise.all([
        listStatus(store, deps.listSources, clock()),
        openReportCount(store.reports),
        trafficStats(store, clock()),
      ]);
      const health = checker.resolverHealth?.latest();
      const resolver = {
        state: health?.state ?? "not probed yet",
        checkedAt: health?.checkedAt?.toISOString() ?? null,
      };
      const view = { resolver, lists, openReports, reportsCapped: openReports >= MAX_REPORTS_SHOWN, traffic };
      return page(reply, renderOverview(await contextOf(request), view));
    });

    desk.get("/reports", { schema: { hide: true } }, async (request, reply) => {
      const queue = await reportQueue({ reports: store.reports, checker }, "open");
      return page(reply, renderReports(await contextOf(request), queue));
    });
    for (const decision of ["accept", "reject"] as const) {
      desk.post(
        `/reports/:id/${decision}`,
        { schema: { hide: true, params: Type.Object({ id: Type.String() }), body: ReviewForm } },
        async (request, reply) => {
          const note = request.body.note?.trim() || null;
          const review = await reviewReport(
            { store, clock },
            request.params.id,
            decision,
            note,
            actorOf(request),
          );
          if (review.override) await deps.settle();
          return backTo(reply, "/console/reports");
        },
      );
    }

    desk.get("/overrides", { schema: { hide: true } }, async (request, reply) =>
      page(reply, renderOverrides(await contextOf(request), await listOverrides(store))),
    );
    desk.post("/overrides", { schema: { hide: true, body: OverrideForm } }, async (request, reply) => {
      const { kind, value, action, note } = request.body;
      const body = { kind, value, action, note: note?.trim() || null };
      await setOverride(store, body, clock(), deps, actorOf(request));
      await deps.settle();
      return backTo(reply, "/console/overrides");
    });
    desk.post("/overrides/remove", { schema: { hide: true, body: RemoveForm } }, async (request, reply) => {
      const { kind, value } = request.body;
      if ((await removeOverride(store, { kind, value }, deps, actorOf(request))).removed) await deps.settle();
      return backTo(reply, "/console/overrides");
    });

    desk.get("/plans", { schema: { hide: true } }, async (request, reply) =>
      page(reply, renderPlans(await contextOf(request), await listPlans(store))),
    );

    desk.post(
      "/plans/:name",
      { schema: { hide: true, params: Type.Object({ name: Type.String() }), body: QuotaForm } },
      async (request, reply) => {
        const quota = Number(request.body.quota);
        await updatePlan(store, request.params.name, { quota }, actorOf(request));
        await deps.settle();
        return backTo(reply, "/console/plans");
      },
    );

    desk.get("/lists", { schema: { hide: true } }, async (request, reply) =>
      page(reply, renderLists(await contextOf(request), await listStatus(store, deps.listSources, clock()))),
    );
    desk.post("/lists/rollback", { schema: { hide: true, body: RollbackForm } }, async (request, reply) => {
      if ((await rollback(store, request.body.source, actorOf(request))).rolled_back.length > 0)
        await deps.settle();
      return backTo(reply, "/console/lists");
    });

    desk.get("/webhooks", { schema: { hide: true } }, async (request, reply) => {
      const [webhooks, events] = await Promise.all([
        listWebhooks(store),
        deliveries(store, null, DELIVERIES_SHOWN),
      ]);
      return page(reply, renderWebhooks(await contextOf(request), webhooks, events));
    });

    desk.get("/accounts", { schema: { hide: true, querystring: AccountsQuery } }, async (request, reply) => {
      const search = request.query.search?.trim() ?? "";
      const [accounts, plans] = await Promise.all([listAccounts(store, search), listPlans(store)]);
      const view = {
        search,
        accounts,
        capped: accounts.length >= MAX_ACCOUNTS_SHOWN,
        plans: plans.map((plan) => plan.name),
        signupPlan: deps.links.signupPlan,
      };
      return page(reply, renderAccounts(await contextOf(request), view));
    });
    desk.post(
      "/accounts/:id/plan",
      { schema: { hide: true, params: AccountParams, body: AccountPlanForm } },
      async (request, reply) => {
        await setAccountPlan(store, request.params.id, request.body.plan, actorOf(request));
        await deps.settle();
        return reply.redirect(accountsPage(request.body.search), 303);
      },
    );
    for (const [action, state] of [
      ["suspend", "suspended"],
      ["resume", "active"],
    ] as const) {
      desk.post(
        `/accounts/:id/${action}`,
        { schema: { hide: true, params: AccountParams, body: AccountForm } },
        async (request, reply) => {
          await setAccountState(store, request.params.id, state, actorOf(request));
          await deps.settle();
          return reply.redirect(accountsPage(request.body.search), 303);
        },
      );
    }
    desk.post("/accounts/invite", { schema: { hide: true, body: InviteForm } }, async (request, reply) => {
      const { email, plan, operator } = request.body;
      const body = { email, plan, operator: operator === "on" };
      const link = await inviteAccount(store, body, deps.links, clock(), actorOf(request));
      // Without PUBLIC_URL the link is a path: on the desk, at the address the operator uses.
      const url = link.url.startsWith("/") ? `${request.protocol}://${request.host}${link.url}` : link.url;
      return page(reply, renderInvited(await contextOf(request), { ...link, url }), 201);
    });

    desk.get("/audit", { schema: { hide: true, querystring: AuditQuery } }, async (request, reply) => {
      const filter: AuditFilter = request.query;
      const entries = await searchAudit(store, filter);
      return page(reply, renderAudit(await contextOf(request), filter, entries));
    });
  });
}
