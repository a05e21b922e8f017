/**
 * Builds the Fastify app from its dependencies; never listens and never calls `ready()`
 * (that is `server.ts`, or `inject` in tests). Three encapsulated plugins, each with
 * its own hooks and 405 routes: the checking plugin (the API routes: key, quota,
 * rate-limit headers), the pages plugin (HTML, its own HTML error handlers) and the
 * ops routes. The root's error handler answers problem JSON for all but the pages.
 */
import formbody from "@fastify/formbody";
import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Checker } from "../service/checker.js";
import type { QuotaGate } from "./access.js";
import { checkingPlugin } from "./checking.js";
import { BODY_LIMIT_BYTES } from "./limits.js";
import { requestLogger } from "./logging.js";
import { withMethodNotAllowed } from "./method-not-allowed.js";
import { createMetrics } from "./metrics.js";
import { addMultipartParser } from "./multipart.js";
import { homePageConstraint } from "./pages/home-page-constraint.js";
import { pagesPlugin } from "./pages/index.js";
import { HttpProblem, problemFor, sendProblem, toProblem } from "./problems.js";
import type { TypedApp } from "./route-deps.js";
import { healthRoutes } from "./routes/health.js";
import { metricsRoute } from "./routes/metrics.js";
import { openapiRoute } from "./routes/openapi.js";

/** The slice of the store the app uses: quota for the checking routes, `ping` for /readyz. */
export interface AppStore {
  usage: QuotaGate;
  ping(): Promise<void>;
}

export interface AppDeps {
  store: AppStore;
  checker: Checker;
  /** A pino logger for request logs; false or absent: no logging. */
  logger?: Logger | false;
  /** Time source for quota periods (tests move it). */
  clock?: () => Date;
}

const OPENAPI_DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "mailrisk",
    version: "2",
    description:
      "Email and domain risk checks. Every checking response carries x-ratelimit-requests-remaining, x-ratelimit-requests-limit and x-ratelimit-requests-reset; errors are RFC 9457 problem details.",
  },
  tags: [
    { name: "check", description: "The checking routes; each request counts against the key's quota." },
    { name: "ops", description: "Health and readiness." },
  ],
  components: {
    securitySchemes: {
      gatewayKey: { type: "apiKey" as const, in: "header", name: "X-Gateway-Key" },
      bearerKey: {
        type: "http" as const,
        scheme: "bearer",
        description: "The API key, plain or base64-encoded.",
      },
    },
  },
};

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const metrics = createMetrics();
  const clock = deps.clock ?? (() => new Date());
  const app: TypedApp = Fastify({
    ...(deps.logger
      ? { loggerInstance: requestLogger(deps.logger) as FastifyBaseLogger }
      : { logger: false }),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true },
    constraints: { homePage: homePageConstraint },
    frameworkErrors: (error, _request, reply) => sendProblem(reply, toProblem(error)),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest("checkedDomain", null);

  // Bodies: form, multipart and JSON, each under the body limit; nothing else (415).
  app.removeContentTypeParser("text/plain");
  await app.register(formbody, { bodyLimit: BODY_LIMIT_BYTES });
  addMultipartParser(app);
  await app.register(swagger, { openapi: OPENAPI_DOCUMENT });

  app.setErrorHandler((error, request, reply) => sendProblem(reply, problemFor(error, request.log)));
  app.setNotFoundHandler((_request, reply) =>
    sendProblem(reply, new HttpProblem("not_found", "Nothing is served at this path.")),
  );
  app.addHook("onResponse", async (request, reply) => {
    metrics.countRequest(request.method, request.routeOptions.url ?? "unmatched", reply.statusCode);
  });

  await app.register(checkingPlugin, { usage: deps.store.usage, checker: deps.checker, metrics, clock });
  await app.register(pagesPlugin);
  await app.register(async (ops) =>
    withMethodNotAllowed(ops, () => {
      healthRoutes(ops, deps.store);
      metricsRoute(ops, metrics);
      openapiRoute(ops);
    }),
  );
  return app;
}
