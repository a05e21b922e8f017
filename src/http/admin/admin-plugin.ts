/**
 * The admin plugin (docs/api.md "Administration"), registered only when ADMIN_TOKEN is set, so that
 * without it every /admin/ path is a 404. One encapsulated scope:
 *
 *   `onRequest`  a publishable key is refused (403 `publishable_key_not_allowed`), then
 *                an address locked after 10 wrong tokens in a minute (429, for a minute),
 *                the admin token (401 `missing_admin_token` / `invalid_admin_token`),
 *                before anything about the body
 *   log          one line per request, refused ones (401, 429) in samples (refused-request-log.ts)
 *   bodies       strict: no type coercion (the app's ajv), no unknown field (the schemas)
 *   errors       the services' refusals as problems (src/operator/refusal.ts), a schema
 *                violation as `invalid_body` naming the field
 *   changes      a change holds on this server before its answer is sent (`settle`)
 *   routes       keys, plans, records, overrides, reports, lists, webhooks, audit, accounts, jobs, stats (*-routes.ts)
 */
import type { FastifyBaseLogger, FastifyError, RouteOptions } from "fastify";
import { refusalOf } from "../../operator/refusal.js";
import { HttpProblem } from "../http-problem.js";
import { withMethodNotAllowed } from "../method-not-allowed.js";
import { problemFor, refusalProblem, sendProblem } from "../problem-response.js";
import { refusePublishableKey } from "../publishable-keys.js";
import type { TypedApp } from "../typed-app.js";
import type { WindowLimiter } from "../window-limiter.js";
import { adminAccountRoutes } from "./accounts-routes.js";
import { adminAuditRoutes } from "./audit-routes.js";
import type { AdminDeps } from "./deps.js";
import { adminJobRoutes } from "./jobs-routes.js";
import { adminKeyRoutes } from "./keys-routes.js";
import { adminListRoutes } from "./lists-routes.js";
import { adminOverrideRoutes } from "./overrides-routes.js";
import { adminPlanRoutes } from "./plans-routes.js";
import { adminRecordRoutes } from "./records-routes.js";
import { RefusedRequestLog } from "./refused-request-log.js";
import { adminReportRoutes } from "./reports-routes.js";
import { adminStatsRoutes } from "./stats-routes.js";
import { adminAuthHook } from "./token.js";
import { adminWebhookRoutes } from "./webhooks-routes.js";

export type { AdminDeps, AdminStore } from "./deps.js";

export interface AdminPluginOptions extends AdminDeps {
  /** ADMIN_TOKEN (at least 32 characters, checked by the configuration). */
  token: string;
  /** Wrong tokens counted per address (default ADMIN_LOCKOUT: 10 a minute lock an address for a minute). */
  lockout?: WindowLimiter;
}

function adminProblem(error: unknown, log: FastifyBaseLogger): HttpProblem {
  const refusal = refusalOf(error);
  if (refusal) return refusalProblem(refusal);
  const validation = (error as Partial<FastifyError> | null)?.validation;
  if (validation) {
    return new HttpProblem(
      "invalid_body",
      `The request does not fit its schema: ${(error as Error).message}.`,
    );
  }
  return problemFor(error, log);
}

/** Admin bodies are strict: an object body takes no field its schema does not name (400 `invalid_body`). */
function strictBody(route: RouteOptions): void {
  const body = route.schema?.body as { type?: unknown; additionalProperties?: unknown } | undefined;
  if (body?.type !== "object" || body.additionalProperties !== undefined) return;
  route.schema = { ...route.schema, body: { ...body, additionalProperties: false } };
}

export async function adminPlugin(app: TypedApp, options: AdminPluginOptions): Promise<void> {
  app.addHook("onRequest", refusePublishableKey);
  app.addHook("onRequest", adminAuthHook(options.token, options.lockout));
  // Fastify's two lines per request are left out here: RefusedRequestLog writes one, and refusals in samples.
  const requestLog = new RefusedRequestLog(app.log);
  app.addHook("onRoute", (route) => {
    route.logLevel = "warn";
    strictBody(route);
  });
  app.addHook("onResponse", async (request, reply) => requestLog.record(request, reply));
  app.setErrorHandler((error, request, reply) => sendProblem(reply, adminProblem(error, request.log)));
  app.addHook("preSerialization", async (request, _reply, answer) => {
    if (request.method !== "GET") await options.settle();
    return answer;
  });
  await withMethodNotAllowed(app, () => {
    adminKeyRoutes(app, options);
    adminPlanRoutes(app, options);
    adminRecordRoutes(app, options);
    adminOverrideRoutes(app, options);
    adminReportRoutes(app, options);
    adminListRoutes(app, options);
    adminWebhookRoutes(app, options);
    adminAuditRoutes(app, options);
    adminAccountRoutes(app, options);
    adminJobRoutes(app, options);
    adminStatsRoutes(app, options);
  });
}
