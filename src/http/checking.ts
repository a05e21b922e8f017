/**
 * The checking plugin (docs/api.md "Routes", "Keys, plans, quotas"): the API routes that take a key and count
 * against its quota. Encapsulated in two scopes, so each hook is registered once:
 *
 *   checking scope   `onSend`: rate-limit headers and the refund of a 5xx, and the CORS
 *                    headers of an admitted publishable key (cors.ts), on every answer
 *                    of a checking path, the 405 answers included
 *     OPTIONS /, OPTIONS /v2/  the CORS preflight (no key)
 *     access scope   each route's `onRequest` (added by `onRoute`, bound to the route's
 *                    config): authentication (401) and quota (429), counting the units
 *                    the config names (default 1)
 *       GET /  (gateway)   POST /v2/  (direct)   both also take publishable keys
 *       GET /v2/usage  (units 0: counts nothing)
 *       POST /v2/bulk  (units = items: key checked here, counted once the body is valid)
 *       POST /v2/reports, GET /v2/reports/{id}  (units 0: a daily limit of their own; POST needs quota left)
 *       /v2/jobs…  (units 0; an upload counts its items once stored, routes/job-routes.ts)
 *
 * Errors go to the app's error handler, which maps them by type (problems.ts).
 */
import type { onRequestHookHandler, onResponseHookHandler, RouteOptions } from "fastify";
import type { Config } from "../config.js";
import type { RequestsInProgress } from "../service/jobs/requests-in-progress.js";
import type { UploadGate } from "../service/jobs/upload-gate.js";
import type { JobsRepository } from "../store/index.js";
import { accessHook, rateLimitHeadersHook } from "./access.js";
import { BulkGate } from "./bulk-gate.js";
import type { CheckingDeps } from "./checking-deps.js";
import { corsHeadersHook, preflightRoutes } from "./cors.js";
import { withMethodNotAllowed } from "./method-not-allowed.js";
import { visitorLimiter } from "./publishable-keys.js";
import { bulkCheckRoute } from "./routes/bulk-check.js";
import { directCheckRoute } from "./routes/direct-check.js";
import { gatewayCheckRoute } from "./routes/gateway-check.js";
import { type JobsConfig, jobRoutes } from "./routes/job-routes.js";
import { type ReportsGate, reportRoutes } from "./routes/report-routes.js";
import { usageRoute } from "./routes/usage-route.js";
import type { TypedApp } from "./typed-app.js";

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Counts a checking route's requests while they are in progress (a job's upload or download is not one). */
function countInProgress(route: RouteOptions, requests: RequestsInProgress): void {
  const started: onRequestHookHandler = (_request, _reply, done) => {
    requests.started();
    done();
  };
  const ended: onResponseHookHandler = (_request, _reply, done) => {
    requests.ended();
    done();
  };
  route.onRequest = [started, ...asArray(route.onRequest)];
  route.onResponse = [...asArray(route.onResponse), ended];
}

/** The configuration the checking routes read. */
export type CheckingConfig = JobsConfig &
  Pick<Config, "bulkMaxItems" | "bulkConcurrentPerKey" | "bulkConcurrentTotal" | "publishableRateLimit">;

export async function checkingPlugin(
  app: TypedApp,
  options: Omit<CheckingDeps, "visitors"> & {
    reports: ReportsGate;
    jobs: JobsRepository;
    uploadGate: UploadGate;
    config: CheckingConfig;
    /** This process's checking requests in progress, for the list jobs to give way to (absent: not counted). */
    requests?: RequestsInProgress | undefined;
  },
): Promise<void> {
  const visitors = visitorLimiter(options.config.publishableRateLimit, options.clock);
  const deps = { ...options, visitors };
  app.decorateRequest("caller", null);
  app.decorateRequest("corsOrigin", null);
  app.addHook("onSend", rateLimitHeadersHook(deps));
  app.addHook("onSend", corsHeadersHook);
  await withMethodNotAllowed(app, async (checking) => {
    preflightRoutes(checking, deps);
    await checking.register(async (access) => {
      // Each route's own access hook, bound to its config when it is declared.
      access.addHook("onRoute", (route) => {
        route.onRequest = [accessHook(deps, route), ...asArray(route.onRequest)];
        if (options.requests && !route.url.startsWith("/v2/jobs")) countInProgress(route, options.requests);
      });
      gatewayCheckRoute(access, deps);
      directCheckRoute(access, deps);
      usageRoute(access);
      bulkCheckRoute(access, {
        ...deps,
        bulkMaxItems: deps.config.bulkMaxItems,
        gate: new BulkGate(deps.config),
      });
      reportRoutes(access, deps);
      // Its own scope: the upload's stream parsers stay out of the other routes.
      await access.register(jobRoutes, { ...deps, jobs: options.jobs });
    });
  });
}
