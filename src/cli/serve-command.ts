/**
 * `mailrisk serve [--workers N]`: the same server as `npm start`, on HOST:PORT from the
 * environment, in N processes (default: one per core but one; one runs in-process).
 */
import { defaultWorkerCount, runCluster } from "../cluster.js";
import { commandRunner, usageError, wholeNumber } from "./arguments.js";

const MAX_WORKERS = 256;

export const run = commandRunner("serve", async (given, ctx) => {
  const text = given.text("workers");
  const workers = text === undefined ? defaultWorkerCount() : wholeNumber(text);
  if (workers === undefined || workers < 1 || workers > MAX_WORKERS) {
    return usageError(ctx, `serve: --workers must be a whole number from 1 to ${MAX_WORKERS}`, given.usage);
  }
  ctx.announceDatabase?.();
  return runCluster(ctx.config, { workers, stdout: ctx.stdout });
});
