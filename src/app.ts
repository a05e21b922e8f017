/**
 * Builds the Fastify app from its dependencies; never listens and never calls `ready()`
 * (that is `server.ts`, or `inject` in tests). Three encapsulated plugins, each with
 * its own hooks and 405 routes: the checking plugin (the API routes: key, quota,
 * rate-limit headers), the site plugin (src/web/site-plugin.ts: the HTML for people,
 * its own HTML error handlers; docs/architecture.md "The site") and the ops routes. The root's error handler answers problem JSON for all but the pages.
 */
import formbody from "@fastify/formbody";
import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { QuotaGate } from "./http/access.js";
import { accessLogOptions, sampledAccessLog } from "./http/access-log.js";
import { type AdminStore, adminPlugin } from "./http/admin/admin-plugin.js";
import { checkingAnswers } from "./http/answer-bytes.js";
import { type CheckingConfig, checkingPlugin } from "./http/checking.js";
import { checkingFastPath } from "./http/checking-fast-path.js";
import { clientErrorHandler } from "./http/client-errors.js";
import { forwardedHeadersWarning } from "./http/forwarded-headers-warning.js";
import { HttpProblem, shuttingDown } from "./http/http-problem.js";
import {
  BODY_LIMIT_BYTES,
  HEADERS_TIMEOUT_MS,
  MAX_PARAM_LENGTH,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_INTERVAL_MS,
} from "./http/limits.js";
import { requestLogger } from "./http/logging.js";
import { withMethodNotAllowed } from "./http/method-not-allowed.js";
import { createMetrics, type HttpMetrics } from "./http/metrics-registry.js";
import { addFieldsOnlyMultipartParser } from "./http/multipart-form.js";
import { problemFor, sendProblem, sendProblemPage, toProblem } from "./http/problem-response.js";
import { carriesPublishableKey, publishableKeyNotAllowed } from "./http/publishable-keys.js";
import { healthRoutes } from "./http/routes/health.js";
import { metricsRoute } from "./http/routes/metrics.js";
import { openapiRoute } from "./http/routes/openapi.js";
import { widgetRoute } from "./http/routes/widget.js";
import { sharedSchemaCompilers } from "./http/schema-compilers.js";
import { silentConnections } from "./http/silent-connections.js";
import type { TypedApp } from "./http/typed-app.js";
import { hasUnreadBody, lingerOnClose } from "./http/unread-body.js";
import { linkContextOf } from "./operator/accounts.js";
import type { ChangeWatcher } from "./service/checking/change-watcher.js";
import type { Checker } from "./service/checking/checker.js";
import { TrafficCounter } from "./service/checking/traffic-counter.js";
import type { RequestsInProgress } from "./service/jobs/requests-in-progress.js";
import { UploadGate } from "./service/jobs/upload-gate.js";
import type { JobsRepository, RecentRepository, ReportsRepository } from "./store/index.js";
import {
  type AccountPagesDeps,
  type DeskStore,
  homePageConstraint,
  isResultPageUrl,
  type OperatorAccess,
  sitePlugin,
} from "./web/site-plugin.js";

/** The slice of the store the app uses: quota and reports for the checking routes, recent domains for the pages, `ping` for /readyz. */
export interface AppStore {
  usage: QuotaGate;
  recent: Pick<RecentRepository, "listRecent">;
  reports: Pick<ReportsRepository, "fileReport" | "getReport">;
  jobs: JobsRepository;
  ping(): Promise<void>;
}

export interface AppDeps {
  store: AppStore;
  checker: Checker;
  /** A pino logger for request logs; false or absent: no logging. */
  logger?: Logger | false;
  /** Time source for quota periods (tests move it). */
  clock?: () => Date;
  /**
   * ADMIN_TOKEN and the store slice of the admin API under /admin/; absent: no admin API
   * (404). `changes`: this server's watcher of the change signal, so that an admin
   * change holds here before its answer.
   */
  admin?: {
    token: string;
    store: AdminStore;
    changes: Pick<ChangeWatcher, "settle">;
  };
  /**
   * The operator's desk under /console (docs/console.md): who the operator is, from the
   * accounts' sessions; absent (no accounts yet): a 404.
   */
  console?: {
    /** Default: the accounts' sessions (an active account with the `operator` role). */
    access?: OperatorAccess;
    store: DeskStore;
    changes: Pick<ChangeWatcher, "settle">;
  };
  /** The store of the pages for people, served unless SIGNUP is `off` (docs/accounts.md). */
  accounts?: AccountPagesDeps["store"];
  /** The settings the app reads; their meaning and defaults: CONFIG_TABLE. */
  config: AppConfig;
  /** This instance's metrics (default: a new registry); the server passes them to serve on METRICS_PORT. */
  metrics?: HttpMetrics;
  /** This instance's traffic counts (docs/console.md "Traffic"); default: a new one on the app's clock, written only before `/admin/stats` and the desk read. */
  traffic?: TrafficCounter;
  /**
   * `/metrics` on this app: `{ token }` (METRICS_TOKEN, or null for an open route:
   * METRICS_PUBLIC), or false for none (a 404; METRICS_PORT may serve it elsewhere).
   * Default: none.
   */
  metricsRoute?: { token: string | null } | false;
  /** This process's checking requests in progress, counted for the list jobs to give way to. */
  requests?: RequestsInProgress;
}

/** The configuration fields the app reads. */
export type AppConfig = CheckingConfig &
  AccountPagesDeps["config"] &
  Pick<
    Config,
    | "trustProxy"
    | "pageRateLimit"
    | "pageGlobalRateLimit"
    | "jobSpoolMaxBytes"
    | "listSources"
    | "listMaxEntries"
    | "testNames"
    | "smtpUrl"
    | "mailFrom"
    | "accessLog"
  >;

/** The operator's paths (the admin API, the metrics): 403 for a publishable key even where they are not served. */
const OPERATOR_PATHS = /^\/(?:admin|metrics)(?:[/?]|$)/;

const OPENAPI_DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "mailrisk",
    version: "2",
    description:
      "Email and domain risk checks. Every answer of a checking route to a request whose key was found carries x-ratelimit-requests-remaining, x-ratelimit-requests-limit and x-ratelimit-requests-reset (a 401: remaining 0 alone); errors are RFC 9457 problem details (an HTML page when the client prefers text/html).",
  },
  tags: [
    { name: "check", description: "The checking routes; each request counts against the key's quota." },
    {
      name: "jobs",
      description:
        "List jobs: a whole list uploaded, checked in the background, its results downloaded (docs/jobs.md).",
    },
    { name: "ops", description: "Health and readiness." },
    { name: "admin", description: "Administration, when ADMIN_TOKEN is set: keys, plans, usage, records." },
  ],
  components: {
    securitySchemes: {
      gatewayKey: { type: "apiKey" as const, in: "header", name: "X-Gateway-Key" },
      bearerKey: {
        type: "http" as const,
        scheme: "bearer",
        description: "The API key, plain or base64-encoded.",
      },
      adminToken: { type: "http" as const, scheme: "bearer", description: "ADMIN_TOKEN, for /admin/ only." },
    },
  },
};

function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const metrics = deps.metrics ?? createMetrics(deps.checker);
  const metricsRouteOptions = deps.metricsRoute ?? false;
  const clock = deps.clock ?? (() => new Date());
  // The clock in ms for what reads it per request: Date.now unless a clock is given (tests).
  const clockMs = deps.clock ? () => clock().getTime() : Date.now;
  const traffic = deps.traffic ?? new TrafficCounter(clockMs);
  const { config } = deps;
  const links = linkContextOf(config);
  const app: TypedApp = Fastify({
    ...(deps.logger
      ? {
          loggerInstance: requestLogger(deps.logger) as FastifyBaseLogger,
          ...accessLogOptions(config.accessLog),
        }
      : { logger: false }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Slow clients (docs/security.md, "Connections and slow clients"): headers within 10 s, the request within 30 s.
    http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Strict types: a JSON 42 or true is no string (Fastify's default would turn it into
    // "42"), and an array is not one value. Query strings and paths hold text anyway.
    // A schema's `additionalProperties: false` refuses an unknown field (400), never drops it
    // in silence (the admin bodies, docs/security.md "Strict admin bodies").
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    schemaController: sharedSchemaCompilers,
    // A hop count as the function Fastify builds from one (its types take no number).
    trustProxy: typeof config.trustProxy === "number" ? trustHops(config.trustProxy) : config.trustProxy,
    routerOptions: {
      ignoreTrailingSlash: true,
      maxParamLength: MAX_PARAM_LENGTH,
      constraints: { homePage: homePageConstraint },
    },
    frameworkErrors: (error, request, reply) =>
      isResultPageUrl(request.url)
        ? sendProblemPage(reply, toProblem(error))
        : sendProblem(reply, toProblem(error)),
    // Errors before routing (URL and headers over 16 KiB, not HTTP) as problem JSON too.
    clientErrorHandler,
    // Fastify's own 503 while closing is not problem JSON: the onRequest hook below answers instead.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The hooks that run on every request take Fastify's `done` callback rather than being
  // async: nothing in them waits, and a promise per hook per request is measurable.
  let closing = false;
  const closeSilentConnections = silentConnections(app.server);
  app.addHook("preClose", async () => {
    closing = true;
    closeSilentConnections();
  });
  // Without TRUST_PROXY, one warning when a proxy's forwarding headers arrive (forwarded-headers-warning.ts).
  const proxyWarning = config.trustProxy === false ? forwardedHeadersWarning() : undefined;
  app.addHook("onRequest", (request, reply, done) => {
    if (closing) sendProblem(reply, shuttingDown());
    else {
      proxyWarning?.check(request);
      done();
    }
  });
  // A request in flight when the server starts closing still gets its answer, and then
  // its connection is closed: left open (keep-alive), it would hold the server's close,
  // and so the process's exit on SIGTERM, until the client let go or keepAliveTimeout.
  // So is one whose body was not read to its end (over the limit, refused before it was
  // read, or ignored): Node would read the rest, however large, to keep the connection.
  // Its close lingers (unread-body.ts): closed at once, the client could lose the answer.
  app.addHook("onSend", (request, reply, payload, done) => {
    if (closing) reply.header("connection", "close");
    else if (hasUnreadBody(request.raw)) {
      reply.header("connection", "close");
      lingerOnClose(request.raw);
    }
    done(null, payload);
  });

  app.decorateRequest("checkedDomain", null);

  // Bodies: form, multipart and JSON, each under the body limit; nothing else (415).
  app.removeContentTypeParser("text/plain");
  await app.register(formbody, { bodyLimit: BODY_LIMIT_BYTES });
  addFieldsOnlyMultipartParser(app);
  await app.register(swagger, { openapi: OPENAPI_DOCUMENT });

  app.setErrorHandler((error, request, reply) => sendProblem(reply, problemFor(error, request.log)));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      // A publishable key is told it has no business with the operator's paths, served here or not.
      OPERATOR_PATHS.test(request.url) && carriesPublishableKey(request.headers)
        ? publishableKeyNotAllowed()
        : new HttpProblem("not_found", "Nothing is served at this path."),
    ),
  );
  const accessLog = deps.logger ? sampledAccessLog(config.accessLog, clockMs) : undefined;
  app.addHook("onResponse", (request, reply, done) => {
    metrics.countRequest(request.method, request.routeOptions.url ?? "unmatched", reply.statusCode);
    accessLog?.answered(request, reply);
    done();
  });

  // One per app: the API's and the console's uploads and downloads share its caps.
  const uploadGate = new UploadGate({
    uploadsPerOwner: config.jobUploadsPerAccount,
    spoolMaxBytes: config.jobSpoolMaxBytes,
  });
  // What the checking routes and their fast path share: the same prepared answers, counts and clock.
  const checking = {
    answers: checkingAnswers(),
    usage: deps.store.usage,
    checker: deps.checker,
    metrics,
    traffic,
    clock,
    testNames: config.testNames,
    requests: deps.requests,
  };
  await app.register(checkingPlugin, {
    ...checking,
    reports: deps.store.reports,
    jobs: deps.store.jobs,
    uploadGate,
    config,
  });
  const { console: desk } = deps;
  const pagesDeps = { checker: deps.checker, metrics, traffic, testNames: config.testNames };
  const accounts =
    deps.accounts && config.signup !== "off"
      ? { ...pagesDeps, store: deps.accounts, config, mailer: links.mailer, clock, uploadGate }
      : undefined;
  await app.register(sitePlugin, {
    ...pagesDeps,
    recent: deps.store.recent,
    config,
    desk: desk && {
      access: desk.access,
      store: desk.store,
      checker: deps.checker,
      clock,
      settle: () => desk.changes.settle(),
      links,
      listSources: config.listSources,
      testNames: config.testNames,
      flushTraffic: () => traffic.flush(desk.store.traffic),
    },
    ...(accounts ? { accounts } : {}),
  });
  await app.register(async (ops) =>
    withMethodNotAllowed(ops, () => {
      healthRoutes(ops, deps.store, deps.checker.resolverHealth);
      if (metricsRouteOptions) metricsRoute(ops, metrics.registry, metricsRouteOptions.token);
      openapiRoute(ops);
      widgetRoute(ops);
    }),
  );
  if (deps.admin) {
    const { token, store, changes } = deps.admin;
    await app.register(adminPlugin, {
      token,
      store,
      clock,
      settle: () => changes.settle(),
      listSources: config.listSources,
      listMaxEntries: config.listMaxEntries,
      testNames: config.testNames,
      jobRetentionSeconds: config.jobRetentionSeconds,
      checker: deps.checker,
      links,
      flushTraffic: () => traffic.flush(store.traffic),
    });
  }
  // The cached checks' fast path in front of Fastify, on the server's sockets (inject() goes to Fastify);
  // none with ACCESS_LOG=all, whose two lines a request are Fastify's.
  const [fastify] = app.server.listeners("request") as Parameters<typeof checkingFastPath>[1][];
  if (fastify && !(deps.logger && config.accessLog === "all")) {
    app.server.removeListener("request", fastify);
    app.server.on(
      "request",
      checkingFastPath({ ...checking, closing: () => closing, accessLog, proxyWarning }, fastify),
    );
  }
  return app;
}
