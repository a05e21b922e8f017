/** What every sub-command gets from the dispatcher (`main.ts`); tests pass their own. */
import type { Config } from "../config.js";
import type { Store } from "../store/types.js";

export interface CliContext {
  config: Config;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Opens the configured database; the caller migrates and closes it. */
  openStore(): Promise<Store>;
}

/** What a change made from the CLI says of running servers (the change signal, src/service/change-watcher.ts). */
export const TAKEN_BY_RUNNING_SERVERS = "Running servers take it within a second.";
