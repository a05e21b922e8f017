/**
 * Builds the Fastify app from configuration and dependencies; never listens (that is
 * `server.ts`). Tests call `buildApp` with a test store and a fake checker and use `inject`.
 */
import formbody from "@fastify/formbody";
import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Checker } from "../core/checker.js";
import type { Store } from "../store/types.js";
import { rateLimitHeadersHook } from "./access.js";
import { BODY_LIMIT_BYTES } from "./limits.js";
import { requestLogger } from "./logging.js";
import { collectRoutes } from "./method-not-allowed.js";
import { createMetrics } from "./metrics.js";
import { addMultipartParser } from "./multipart.js";
import { HttpProblem, sendProblem, toProblem } from "./problems.js";
import type { RouteDeps, TypedApp } from "./route-deps.js";
import { directCheckRoute } from "./routes/direct-check.js";
import { gatewayCheckRoute } from "./routes/gateway-check.js";
import { healthRoutes } from "./routes/health.js";
import { metricsRoute } from "./routes/metrics.js";
import { openapiRoute } from "./routes/openapi.js";

export interface AppDeps {
  config: Config;
  store: Store;
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
  const routeDeps: RouteDeps = {
    store: deps.store,
    checker: deps.checker,
    clock: deps.clock ?? (() => new Date()),
    metrics,
  };
  const app: TypedApp = Fastify({
    ...(deps.logger
      ? { loggerInstance: requestLogger(deps.logger) as FastifyBaseLogger }
      : { logger: false }),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: (error, _request, reply) => sendProblem(reply, toProblem(error)),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest("caller", null);
  app.decorateRequest("servesPage", false);
  app.decorateRequest("checkedDomain", null);

  // Bodies: form, multipart and JSON, each under the body limit; nothing else (415).
  app.removeContentTypeParser("text/plain");
  await app.register(formbody, { bodyLimit: BODY_LIMIT_BYTES });
  addMultipartParser(app);
  await app.register(swagger, { openapi: OPENAPI_DOCUMENT });

  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    if (problem.status >= 500 && !(error instanceof HttpProblem)) {
      request.log.error({ err: error }, "unhandled error");
    }
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((_request, reply) =>
    sendProblem(reply, new HttpProblem("not_found", "Nothing is served at this path.")),
  );
  app.addHook("onResponse", async (request, reply) => {
    metrics.countRequest(request.method, request.routeOptions.url ?? "unmatched", reply.statusCode);
  });

  const routes = collectRoutes();
  app.addHook("onRoute", routes.onRoute);
  gatewayCheckRoute(app, routeDeps);
  directCheckRoute(app, routeDeps);
  healthRoutes(app, routeDeps);
  metricsRoute(app, metrics);
  openapiRoute(app);
  routes.addMethodNotAllowedRoutes(app, rateLimitHeadersHook(routeDeps));

  await app.ready();
  return app;
}
