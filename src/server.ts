/**
 * Runs the service: opens and migrates the database, prints a first key on an empty
 * one, wires the engine and the app, listens on HOST:PORT, and shuts down gracefully
 * (in-flight requests finish, background refreshes drain, the database closes).
 * `main.ts` (npm start) and `mailrisk serve` both come here.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { FastifyInstance } from "fastify";
import { type Logger, pino } from "pino";
import { buildApp } from "./app.js";
import type { Config } from "./config.js";
import {
  type ConnectionLimits,
  connectionCap,
  limitConnections,
  openFileLimit,
} from "./http/connection-limits.js";
import { REQUEST_TIMEOUT_MS } from "./http/limits.js";
import { createMetrics } from "./http/metrics-registry.js";
import { answerPrimaryWithMetrics, type MetricsServer, startMetricsServer } from "./http/metrics-server.js";
import { type ChangeWatcher, changeWatcherOf } from "./service/checking/change-watcher.js";
import { createChecker } from "./service/checking/create-checker.js";
import { TrafficCounter } from "./service/checking/traffic-counter.js";
import { scheduleHousekeeping } from "./service/housekeeping-schedule.js";
import { CpuShare } from "./service/jobs/cpu-share.js";
import { JobRunner } from "./service/jobs/job-runner.js";
import { removeStaleSpools, spoolRoot } from "./service/jobs/job-upload.js";
import { RequestsInProgress } from "./service/jobs/requests-in-progress.js";
import { ListSchedule } from "./service/lists/list-schedule.js";
import { PeriodicTask } from "./service/shared/periodic-task.js";
import { type DeliveryTiming, WebhookDelivery } from "./service/webhooks/webhook-delivery.js";
import { WebhookRedecider } from "./service/webhooks/webhook-redecider.js";
import type { KeysRepository, Store } from "./store/index.js";
import { describeDatabase, openStore } from "./store/index.js";

export interface ServerOptions {
  /** Where the first key is printed; default stdout. */
  stdout?: NodeJS.WritableStream;
  /** Default: pino at `config.logLevel` on stdout. */
  logger?: Logger;
  /** The database is already migrated and has its first key (a cluster's primary did it): skip both. */
  prepared?: boolean;
  /** A cluster's worker: the primary serves METRICS_PORT and asks this process for its metrics. */
  clusterWorker?: boolean;
  /** Tests: shorter webhook retries and polls than DELIVERY_TIMING. */
  webhookTiming?: Partial<DeliveryTiming>;
}

export interface RunningServer {
  app: FastifyInstance;
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
  /** Stops accepting, lets in-flight requests finish, drains the checker, closes the database. */
  close(): Promise<void>;
}

/**
 * docs/api.md "Running it": on an empty database, create a key on the built-in `unlimited` plan for
 * the operator (their own sign-up form must not hit a quota by surprise) and show its
 * secret once.
 */
async function createFirstKey(
  keys: KeysRepository,
  stdout: NodeJS.WritableStream,
  logger: Logger,
): Promise<void> {
  if ((await keys.countKeys()) > 0) return;
  const { key, secret } = await keys.createKey({ plan: "unlimited", name: "first key", now: new Date() });
  logger.info({ keyId: key.id, prefix: key.prefix, plan: key.plan }, "created the first API key");
  stdout.write(
    [
      "",
      'mailrisk: the database had no API keys, so one was created on the built-in plan "unlimited":',
      "no quota (its requests are still counted, see GET /v2/usage). Keys you hand out to others",
      'can go on "free" (1,000 requests per 30 days): mailrisk keys create --plan free',
      "",
      "Store this key now; it is shown only this once:",
      "",
      `    ${secret}`,
      "",
      "",
    ].join("\n"),
  );
}

/** Applies the migrations and, on an empty database, creates the first key. */
async function prepare(store: Store, options: ServerOptions, logger: Logger): Promise<void> {
  await store.migrate();
  await createFirstKey(store.keys, options.stdout ?? process.stdout, logger);
}

/** What a cluster's primary does once before forking: open, prepare and close the database. */
export async function prepareDatabase(config: Config, options: ServerOptions = {}): Promise<void> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const store = await openStore(config.database);
  try {
    await prepare(store, options, logger);
  } finally {
    await store.close();
  }
}

/** Where `/metrics` is served on PORT: behind METRICS_TOKEN, open with METRICS_PUBLIC, else not (a 404). */
function metricsOnPort(config: Config): { token: string | null } | false {
  if (config.metricsPort !== null) return false;
  if (config.metricsToken !== null || config.metricsPublic) return { token: config.metricsToken };
  return false;
}

/** MAX_CONNECTIONS and MAX_CONNECTIONS_PER_CLIENT in force; a ConfigError when the first does not fit the open-file limit. */
function connectionLimits(config: Config): ConnectionLimits {
  return {
    overall: connectionCap(config.maxConnections, openFileLimit()),
    perClient: config.maxConnectionsPerClient,
  };
}

async function serve(
  store: Store,
  config: Config,
  options: ServerOptions,
  logger: Logger,
  connections: ConnectionLimits,
): Promise<RunningServer> {
  if (!options.prepared) await prepare(store, options, logger);
  // Uploads a killed process was spooling (docs/jobs.md "Uploads").
  const stale = await removeStaleSpools(spoolRoot(), new Date(), REQUEST_TIMEOUT_MS);
  if (stale.length > 0) logger.info({ folders: stale.length }, "removed upload spools left behind");
  // Shutdown aborts what need not finish: the domain-age look-ups still queued or running.
  const shutdown = new AbortController();
  // A flip is recorded only under the policy the change watcher (made below) has applied here.
  const applied: { changes?: ChangeWatcher } = {};
  // The API's checking requests in progress: the jobs give way to them (docs/jobs.md "Headroom").
  const requests = new RequestsInProgress();
  const checker = createChecker({
    config,
    store,
    jobsGiveWayTo: requests,
    logger,
    shutdown: shutdown.signal,
    policy: {
      policyVersion: () => applied.changes?.policyVersion(),
      settle: async () => applied.changes?.settle(),
    },
    // Answers to API callers record block-status flips; the pages and the reports queue only read.
    recordsFlips: true,
  });
  const lists = new ListSchedule({
    store,
    sources: config.listSources,
    intervalSeconds: config.listSyncIntervalSeconds,
    maxEntries: config.listMaxEntries,
    logger,
  });
  // Webhooks (docs/webhooks.md): the outbox is delivered by every server, flips found by re-deciding by one at a time.
  const holder = `${hostname()} ${process.pid} ${randomBytes(4).toString("hex")}`;
  const delivery = new WebhookDelivery({
    webhooks: store.webhooks,
    holder,
    ...(options.webhookTiming ? { timing: options.webhookTiming } : {}),
    onError: (error) => logger.warn({ err: error }, "could not deliver webhook events; retrying"),
    onFailedAttempt: (event, failure, next) =>
      logger.warn({ eventId: event.id, webhookId: event.webhookId, failure, next }, "webhook attempt failed"),
  });
  const redecider = new WebhookRedecider({
    store,
    target: checker,
    watchDays: config.webhookWatchDays,
    holder,
    onPass: (pass) => logger.info(pass, "watched domains decided again after a change"),
    onError: (error) => logger.warn({ err: error }, "could not decide watched domains again; retrying"),
  });
  // The traffic this server answers, counted in memory and added to the daily counters each second (docs/console.md "Traffic").
  const traffic = new TrafficCounter();
  // List jobs (docs/jobs.md): every server claims batches; they check through the API's wiring, in their own budget.
  const jobs = new JobRunner({
    traffic,
    jobs: store.jobs,
    requests,
    cpu: new CpuShare(),
    checker,
    testNames: config.testNames,
    holder,
    retentionMs: config.jobRetentionSeconds * 1000,
    failAfterMs: config.jobFailAfterSeconds * 1000,
    onError: (error) => logger.warn({ err: error }, "a list job batch failed; it is claimed again"),
    onEnded: (job) => logger.info({ jobId: job.id, status: job.status, items: job.items }, "list job ended"),
  });
  const metrics = createMetrics(checker, lists, delivery, jobs);
  // Changes of keys, plans, overrides and records, from anywhere, hold here within a second.
  const changes = changeWatcherOf(store, checker, (error) =>
    logger.warn({ err: error }, "could not read the change signal; retrying"),
  );
  applied.changes = changes;
  const housekeeping = scheduleHousekeeping({
    housekeeping: store.housekeeping,
    recordTtlSeconds: config.recordTtlSeconds,
    sessionTtlSeconds: config.sessionTtlSeconds,
    logger,
  });
  const dailyUsage = new PeriodicTask({
    run: () => store.usage.flushDailyUsage(),
    everyMs: 1000,
    firstMs: 1000,
    onError: (error) => logger.warn({ err: error }, "could not write the requests per day; retrying"),
  });
  const quotaSettlements = new PeriodicTask({
    run: () => store.usage.settleQuota(),
    everyMs: 1000,
    firstMs: 1000,
    onError: (error) => logger.warn({ err: error }, "could not give back units counted for a 503; retrying"),
  });
  const trafficCounts = new PeriodicTask({
    run: () => traffic.flush(store.traffic),
    everyMs: 1000,
    firstMs: 1000,
    onError: (error) => logger.warn({ err: error }, "could not write the traffic counts; retrying"),
  });
  const separateMetrics = config.metricsPort !== null;
  const app = await buildApp({
    store,
    checker,
    logger,
    metrics,
    traffic,
    metricsRoute: metricsOnPort(config),
    config,
    accounts: store,
    requests,
    console: { store, changes },
    ...(config.adminToken ? { admin: { token: config.adminToken, store, changes } } : {}),
  });
  limitConnections(app.server, connections, (limit) => metrics.countRefusedConnection(limit));
  logger.info(
    { maxConnections: connections.overall, maxConnectionsPerClient: connections.perClient ?? "off" },
    "connection caps",
  );
  if (!separateMetrics && !metricsOnPort(config)) {
    logger.info("/metrics is not served: set METRICS_TOKEN, METRICS_PORT or METRICS_PUBLIC=on to serve it");
  }
  // Every background loop of the server (docs/architecture.md, "Background loops"): one
  // list, started once the app is built, stopped on shutdown or when listening fails.
  const loops = [
    changes,
    delivery,
    redecider,
    housekeeping,
    dailyUsage,
    quotaSettlements,
    trafficCounts,
    jobs,
    ...(config.listSources.length > 0 ? [lists] : []),
  ];
  for (const loop of loops) void loop.start();
  // The checker's own loops (the resolver canary, the observers) end with `checker.close()`.
  const stopLoops = () => Promise.all(loops.map((loop) => loop.stop()));
  let url: string;
  let metricsServer: MetricsServer | null = null;
  try {
    url = await app.listen({ host: config.host, port: config.port });
    if (separateMetrics && options.clusterWorker) answerPrimaryWithMetrics(metrics.registry);
    else if (config.metricsPort !== null) {
      metricsServer = await startMetricsServer({
        host: config.host,
        port: config.metricsPort,
        source: metrics.registry,
        token: config.metricsToken,
      });
      logger.info({ url: `${metricsServer.url}/metrics` }, "metrics served on their own port");
    }
  } catch (error) {
    await Promise.all([app.close(), stopLoops(), checker.close()]);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    app,
    url,
    close() {
      closing ??= (async () => {
        shutdown.abort();
        await Promise.all([app.close(), metricsServer?.close()]);
        await stopLoops();
        await checker.close();
        // What was counted since the last write, the jobs' last batch included.
        await traffic
          .flush(store.traffic)
          .catch((error) => logger.warn({ err: error }, "could not write the traffic counts at shutdown"));
        await store.close();
      })();
      return closing;
    },
  };
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const connections = connectionLimits(config);
  const store = await openStore(config.database, {
    onIdleError: (error) => logger.warn({ err: error }, "database connection lost while idle"),
    checkpointInBackground: true,
  });
  // The CLI names its database too (--verbose): the two can be compared.
  logger.info({ database: describeDatabase(config.database) }, "database opened");
  try {
    return await serve(store, config, options, logger, connections);
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The next SIGTERM or SIGINT. */
export function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.removeListener("SIGTERM", onSignal);
      process.removeListener("SIGINT", onSignal);
      resolve(signal);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}

/**
 * Serves until SIGTERM or SIGINT (or until `stop` resolves, for a cluster's worker),
 * then shuts down; a second signal exits at once. Resolves to an exit code.
 */
export async function runServer(
  config: Config,
  options: ServerOptions = {},
  stop: Promise<string> = nextSignal(),
): Promise<number> {
  const server = await startServer(config, options);
  const log = server.app.log;
  log.info({ signal: await stop }, "shutting down");
  void nextSignal().then(() => process.exit(1));
  await server.close();
  log.info("stopped");
  return 0;
}
