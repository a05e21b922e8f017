/** Runs a sub-command's work on the configured database, migrated first and closed after. */
import type { Store } from "../store/index.js";
import { parseArguments, usageError } from "./arguments.js";
import type { CliContext } from "./context.js";

export async function withStore<T>(ctx: CliContext, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await ctx.openStore();
  try {
    await store.migrate();
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Writes a service's answer as one line of JSON: the body the matching admin route answers. */
export function writeJson(ctx: CliContext, value: unknown): void {
  ctx.stdout.write(`${JSON.stringify(value)}\n`);
}

/** A `list [--json]` form: what `work` finds, as JSON with --json, else as `text` renders it. */
export async function listing<T>(
  args: string[],
  ctx: CliContext,
  usage: string,
  work: (store: Store) => Promise<T>,
  text: (found: T) => string,
): Promise<number> {
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: false });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const found = await withStore(ctx, work);
  if (result.parsed.values.json) writeJson(ctx, found);
  else ctx.stdout.write(text(found));
  return 0;
}
