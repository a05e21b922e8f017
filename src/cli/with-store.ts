/** Runs a sub-command's work on the configured database, migrated first and closed after, and writes its answer. */
import type { Store } from "../store/index.js";
import type { Given, Handler } from "./arguments.js";
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

/** A service's answer: with `--json` one line of JSON, the body the matching admin route answers; else as `text` renders it. */
export function answer<T>(ctx: CliContext, given: Given, found: T, text: (found: T) => string): number {
  ctx.stdout.write(given.json ? `${JSON.stringify(found)}\n` : text(found));
  return 0;
}

/** A form whose work is one service call on the database: what `work` finds, answered. */
export function answering<T>(
  work: (store: Store, given: Given, ctx: CliContext) => Promise<T>,
  text: (found: T, ctx: CliContext) => string,
): Handler<CliContext> {
  return async (given, ctx) => {
    const found = await withStore(ctx, (store) => work(store, given, ctx));
    return answer(ctx, given, found, (value) => text(value, ctx));
  };
}
