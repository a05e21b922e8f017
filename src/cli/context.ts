/** What every sub-command gets from the dispatcher (`run-cli.ts`); tests pass their own. */
import { existsSync } from "node:fs";
import type { Config } from "../config.js";
import type { Store } from "../store/index.js";
import { describeDatabase, openStore } from "../store/index.js";

export interface CliContext {
  config: Config;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The time a change is made at (tests pass the admin API's clock). */
  clock: () => Date;
  /** Opens the configured database; the caller migrates and closes it. */
  openStore(): Promise<Store>;
  /** Names the database on stderr (once) when stderr is a terminal or with --verbose. */
  announceDatabase?(): void;
}

/** What a change made from the CLI says of running servers (the change signal, src/service/checking/change-watcher.ts). */
export const TAKEN_BY_RUNNING_SERVERS = "Running servers take it within a second.";

/** A command other than serve or migrate found no SQLite file where the configuration points. */
export class NoDatabaseError extends Error {
  override name = "NoDatabaseError";
  constructor(
    readonly path: string,
    config: Pick<Config, "stateDir">,
    cwd: string,
  ) {
    super(
      `there is no database at ${path}, and this command does not create one.\n` +
        `The database is DATABASE_URL, or else <STATE_DIR>/mailrisk.db with STATE_DIR ${config.stateDir} ` +
        `(STATE_DIR defaults to ./var, relative to the working directory, here ${cwd}).\n` +
        "Run the command where the server runs, or name the server's database: STATE_DIR=/path/to/state, " +
        'or DATABASE_URL=sqlite:/path/to/mailrisk.db or postgres://…; "mailrisk migrate" creates a new one there.',
    );
  }
}

export interface CliContextOptions {
  /** The command may create a new SQLite database (serve, migrate). */
  mayCreateDatabase: boolean;
  /** --verbose: name the database on stderr even when it is no terminal. */
  verbose: boolean;
  /** The working directory, for messages. */
  cwd: string;
}

/** A context on real streams: opening the database names it (on a terminal, or --verbose) and refuses to create one unless allowed. */
export function createCliContext(
  config: Config,
  io: Pick<CliContext, "stdin" | "stdout" | "stderr">,
  options: CliContextOptions,
): CliContext {
  let announced = false;
  const announceDatabase = () => {
    const terminal = (io.stderr as { isTTY?: boolean }).isTTY === true;
    if (announced || !(terminal || options.verbose)) return;
    announced = true;
    io.stderr.write(`mailrisk: database ${describeDatabase(config.database)}\n`);
  };
  return {
    config,
    ...io,
    clock: () => new Date(),
    announceDatabase,
    async openStore() {
      const location = config.database;
      if (
        !options.mayCreateDatabase &&
        location.dialect === "sqlite" &&
        location.path !== ":memory:" &&
        !existsSync(location.path)
      ) {
        throw new NoDatabaseError(location.path, config, options.cwd);
      }
      announceDatabase();
      return openStore(location);
    },
  };
}
