/**
 * The admin plugin (docs/api.md §10), registered only when ADMIN_TOKEN is set, so that
 * without it every /admin/ path is a 404. One encapsulated scope:
 *
 *   `onRequest`  the admin token (401 `missing_admin_token` / `invalid_admin_token`),
 *                before anything about the body
 *   errors       the store's refusals as problems (unknown_key, unknown_plan, plan_exists,
 *                invalid_plan), a schema violation as `invalid_body` naming the field
 *   routes       keys.ts, plans.ts, records.ts, overrides.ts, reports.ts, lists.ts, webhooks.ts
 */
import type { FastifyBaseLogger, FastifyError } from "fastify";
import { InvalidPlanError, PlanExistsError, UnknownKeyError, UnknownPlanError } from "../../store/errors.js";
import { withMethodNotAllowed } from "../method-not-allowed.js";
import { HttpProblem, problemFor, sendProblem } from "../problems.js";
import type { TypedApp } from "../route-deps.js";
import type { AdminDeps } from "./deps.js";
import { adminKeyRoutes } from "./keys.js";
import { adminListRoutes } from "./lists.js";
import { adminOverrideRoutes } from "./overrides.js";
import { adminPlanRoutes } from "./plans.js";
import { adminRecordRoutes } from "./records.js";
import { adminReportRoutes } from "./reports.js";
import { adminAuthHook } from "./token.js";
import { adminWebhookRoutes } from "./webhooks.js";

export type { AdminDeps, AdminStore } from "./deps.js";

export interface AdminPluginOptions extends AdminDeps {
  /** ADMIN_TOKEN (at least 32 characters, checked by the configuration). */
  token: string;
}

function adminProblem(error: unknown, log: FastifyBaseLogger): HttpProblem {
  if (error instanceof UnknownKeyError)
    return new HttpProblem("unknown_key", `There is no key "${error.id}".`);
  if (error instanceof UnknownPlanError)
    return new HttpProblem("unknown_plan", `There is no plan "${error.plan}".`);
  if (error instanceof PlanExistsError) {
    return new HttpProblem("plan_exists", `A plan named "${error.plan}" exists already.`);
  }
  if (error instanceof InvalidPlanError) return new HttpProblem("invalid_plan", `${error.message}.`);
  const validation = (error as Partial<FastifyError> | null)?.validation;
  if (validation) {
    return new HttpProblem(
      "invalid_body",
      `The request does not fit its schema: ${(error as Error).message}.`,
    );
  }
  return problemFor(error, log);
}

export async function adminPlugin(app: TypedApp, options: AdminPluginOptions): Promise<void> {
  app.addHook("onRequest", adminAuthHook(options.token));
  app.setErrorHandler((error, request, reply) => sendProblem(reply, adminProblem(error, request.log)));
  await withMethodNotAllowed(app, () => {
    adminKeyRoutes(app, options);
    adminPlanRoutes(app, options);
    adminRecordRoutes(app, options);
    adminOverrideRoutes(app, options);
    adminReportRoutes(app, options);
    adminListRoutes(app, options);
    adminWebhookRoutes(app, options);
  });
}
