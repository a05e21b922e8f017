/**
 * `mailrisk serve --workers N` and `npm start`: N processes serving HOST:PORT together
 * (node:cluster; the primary accepts the connections and hands them out in turn).
 *
 * - The primary prepares the database once (migrations, the first key) before it
 *   forks, so neither runs twice; then it only supervises.
 * - A worker that dies unexpectedly is replaced after a back-off that doubles from
 *   0.5 s up to 30 s and starts over once a replacement has run 60 s. A worker that
 *   exits before it ever listened, while the server is first starting, stops the
 *   whole server with exit code 1 (a port in use, say: no replacement would fare better).
 * - SIGTERM or SIGINT to the primary: every worker shuts down gracefully (in-flight
 *   requests finish, refreshes drain, the database closes), then the primary exits 0. A
 *   second signal kills the workers and exits 1 at once.
 * - One worker (or `sqlite::memory:`, which a second process could not share) runs
 *   in-process, as `runServer`.
 * - METRICS_PORT: the primary serves `/metrics` there and sums every worker's counters
 *   (a worker serves none on PORT), so one scrape sees the whole server.
 * - A change the operator makes (a purge, an override, a plan), through any worker's admin
 *   API or the CLI, reaches every worker within a second through the store's change
 *   signal (src/service/checking/change-watcher.ts), like every other instance sharing the database.
 *
 * Quotas stay exact: every worker counts with the same conditional upsert that keeps
 * instances sharing one database exact (docs/http.md, quota counting).
 */
import cluster, { type Worker } from "node:cluster";
import { availableParallelism } from "node:os";
import { setFlagsFromString } from "node:v8";
import { type Logger, pino } from "pino";
import type { Config } from "./config.js";
import { clusterMetricsSource, startMetricsServer } from "./http/metrics-server.js";
import { nextSignal, prepareDatabase, runServer, type ServerOptions } from "./server.js";

/** The message the primary sends a worker to shut down gracefully. */
const SHUTDOWN = "mailrisk:shutdown";
const RESTART_FIRST_DELAY_MS = 500;
const RESTART_MAX_DELAY_MS = 30_000;
/** A worker that ran this long resets its slot's back-off. */
const STABLE_AFTER_MS = 60_000;

/**
 * The default `--workers`: one per core but one, which the primary takes (it accepts
 * every connection and hands it on); so one on two cores, served in-process with no
 * primary at all. Measured in docs/benchmarks.md ("Workers").
 */
export function defaultWorkerCount(cores = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

/** The delay before the `crashes`-th restart in a row of one slot (1-based). */
export function restartDelayMs(crashes: number): number {
  return Math.min(RESTART_MAX_DELAY_MS, RESTART_FIRST_DELAY_MS * 2 ** Math.max(0, crashes - 1));
}

export interface ClusterOptions extends ServerOptions {
  workers: number;
}

/**
 * The V8 flag every serving process runs with (docs/deploy.md "Sizing"): no allocation-site
 * pretenuring. V8 decides once, for good, that a place in the code allocates long-lived
 * objects when they outlive a young collection, and from then on puts them straight in
 * the old generation, where only a full collection frees them. A server's slow moments
 * (a DNS look-up, a batch's first reads) make it so decide for per-check objects, which
 * later die in microseconds: under a list job, hundreds of MB of them pile up.
 */
const SERVE_V8_FLAGS = "--no-allocation-site-pretenuring";

/** Serves until SIGTERM/SIGINT with `options.workers` processes; resolves to the exit code. */
export async function runCluster(config: Config, options: ClusterOptions): Promise<number> {
  // Before any request: the flag only stops decisions not yet taken.
  setFlagsFromString(SERVE_V8_FLAGS);
  const { workers, ...serverOptions } = options;
  if (cluster.isWorker) return runWorker(config, serverOptions);
  const inMemory = config.database.dialect === "sqlite" && config.database.path === ":memory:";
  if (workers <= 1 || inMemory) return runServer(config, serverOptions);
  const logger = serverOptions.logger ?? pino({ level: config.logLevel });
  await prepareDatabase(config, { ...serverOptions, logger });
  // METRICS_PORT: the primary serves it, summing what every worker counted (metrics-server.ts).
  const metrics =
    config.metricsPort === null
      ? null
      : await startMetricsServer({
          host: config.host,
          port: config.metricsPort,
          source: clusterMetricsSource(),
          token: config.metricsToken,
        });
  if (metrics) logger.info({ url: `${metrics.url}/metrics`, workers }, "metrics of every worker served");
  return supervise(workers, logger).finally(() => metrics?.close());
}

/** A worker serves until the primary asks it to stop, a signal arrives, or the primary is gone. */
function runWorker(config: Config, options: ServerOptions): Promise<number> {
  const stop = Promise.race([
    nextSignal(),
    new Promise<string>((resolve) => {
      process.on("message", (message) => {
        if (message === SHUTDOWN) resolve("shutdown requested by the primary");
      });
      process.once("disconnect", () => resolve("primary gone"));
    }),
  ]);
  return runServer(config, { ...options, prepared: true, clusterWorker: true }, stop).finally(() => {
    if (process.connected) process.disconnect();
  });
}

interface Slot {
  worker: Worker;
  startedAt: number;
  crashes: number;
  listened: boolean;
}

function supervise(count: number, logger: Logger): Promise<number> {
  const slots = new Map<number, Slot>();
  const restarts = new Set<NodeJS.Timeout>();
  let stopping = false;
  let everyoneListened = false;
  let finish: (code: number) => void;
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });

  const fork = (crashes: number) => {
    const worker = cluster.fork();
    slots.set(worker.id, { worker, startedAt: Date.now(), crashes, listened: false });
  };

  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    for (const { worker } of slots.values()) {
      if (worker.isConnected()) worker.send(SHUTDOWN);
    }
    const exitCode = code;
    const settle = () => {
      if (slots.size === 0) finish(exitCode);
    };
    cluster.on("exit", settle);
    settle();
  };

  cluster.on("listening", (worker, address) => {
    const slot = slots.get(worker.id);
    if (slot) slot.listened = true;
    if (!everyoneListened && [...slots.values()].filter((s) => s.listened).length === count) {
      everyoneListened = true;
      logger.info({ workers: count, port: address.port }, "all workers listening");
    }
  });

  cluster.on("exit", (worker, code, signal) => {
    const slot = slots.get(worker.id);
    slots.delete(worker.id);
    if (stopping || !slot) return;
    if (!slot.listened && !everyoneListened) {
      logger.error({ workerPid: worker.process.pid, code, signal }, "a worker failed to start; stopping");
      stop(1);
      return;
    }
    const stable = Date.now() - slot.startedAt >= STABLE_AFTER_MS;
    const crashes = stable ? 1 : slot.crashes + 1;
    const delayMs = restartDelayMs(crashes);
    logger.warn(
      { workerPid: worker.process.pid, code, signal, restartInMs: delayMs },
      "a worker died; replacing it",
    );
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork(crashes);
    }, delayMs);
    restarts.add(timer);
  });

  void nextSignal().then((signal) => {
    logger.info({ signal, workers: slots.size }, "shutting down");
    void nextSignal().then(() => {
      for (const { worker } of slots.values()) worker.process.kill("SIGKILL");
      process.exit(1);
    });
    stop(0);
  });

  for (let i = 0; i < count; i++) fork(0);
  return done.then((code) => {
    logger.info("stopped");
    return code;
  });
}
