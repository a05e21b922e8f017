/**
 * `mailrisk serve [--workers N]`: the same server as `npm start`, on HOST:PORT from the
 * environment, in N processes (default: one per core but one; one runs in-process).
 */
import { defaultWorkerCount, runCluster } from "../cluster.js";
import { parseArguments, usageError, wholeNumber } from "./arguments.js";
import type { CliContext } from "./context.js";
import { usageOf } from "./usage-text.js";

const USAGE = usageOf("serve");
const MAX_WORKERS = 256;

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const parsed = parseArguments({ args, options: { workers: { type: "string" } }, allowPositionals: false });
  if (!parsed.ok) return usageError(ctx, `serve: ${parsed.message}`, USAGE);
  const given = parsed.parsed.values.workers;
  const workers = given === undefined ? defaultWorkerCount() : wholeNumber(given);
  if (workers === undefined || workers < 1 || workers > MAX_WORKERS) {
    return usageError(ctx, `serve: --workers must be a whole number from 1 to ${MAX_WORKERS}`, USAGE);
  }
  ctx.announceDatabase?.();
  return runCluster(ctx.config, { workers, stdout: ctx.stdout });
}
