/**
 * Runs the service: opens and migrates the database, prints a first key on an empty
 * one, wires the engine and the app, listens on HOST:PORT, and shuts down gracefully
 * (in-flight requests finish, background refreshes drain, the database closes).
 * `main.ts` (npm start) and `mailrisk serve` both come here.
 */
import type { FastifyInstance } from "fastify";
import { type Logger, pino } from "pino";
import type { Config } from "./config.js";
import { buildApp } from "./http/app.js";
import { createChecker } from "./service/create-checker.js";
import { openStore } from "./store/index.js";
import type { KeysRepository, Store } from "./store/types.js";

export interface ServerOptions {
  /** Where the first key is printed; default stdout. */
  stdout?: NodeJS.WritableStream;
  /** Default: pino at `config.logLevel` on stdout. */
  logger?: Logger;
}

export interface RunningServer {
  app: FastifyInstance;
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
  /** Stops accepting, lets in-flight requests finish, drains the checker, closes the database. */
  close(): Promise<void>;
}

/** docs/api.md §9: on an empty database, create a `free` key and show its secret once. */
async function createFirstKey(
  keys: KeysRepository,
  stdout: NodeJS.WritableStream,
  logger: Logger,
): Promise<void> {
  if ((await keys.countKeys()) > 0) return;
  const { key, secret } = await keys.createKey({ plan: "free", name: "first key", now: new Date() });
  logger.info({ keyId: key.id, prefix: key.prefix, plan: key.plan }, "created the first API key");
  stdout.write(
    [
      "",
      'mailrisk: the database had no API keys, so one was created (plan "free").',
      "Store it now; it is shown only this once:",
      "",
      `    ${secret}`,
      "",
      "",
    ].join("\n"),
  );
}

async function serve(
  store: Store,
  config: Config,
  options: ServerOptions,
  logger: Logger,
): Promise<RunningServer> {
  await store.migrate();
  await createFirstKey(store.keys, options.stdout ?? process.stdout, logger);
  const checker = createChecker({ config, store, logger });
  const app = await buildApp({ store, checker, logger });
  let url: string;
  try {
    url = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    app,
    url,
    close() {
      closing ??= (async () => {
        await app.close();
        await checker.drain();
        await store.close();
      })();
      return closing;
    },
  };
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const store = await openStore(config.database, {
    onIdleError: (error) => logger.warn({ err: error }, "database connection lost while idle"),
  });
  try {
    return await serve(store, config, options, logger);
  } catch (error) {
    await store.close();
    throw error;
  }
}

function nextSignal(): Promise<NodeJS.Signals> {
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

/** Serves until SIGTERM or SIGINT, then shuts down; a second signal exits at once. Resolves to an exit code. */
export async function runServer(config: Config, options: ServerOptions = {}): Promise<number> {
  const server = await startServer(config, options);
  const log = server.app.log;
  log.info({ signal: await nextSignal() }, "shutting down");
  void nextSignal().then(() => process.exit(1));
  await server.close();
  log.info("stopped");
  return 0;
}
