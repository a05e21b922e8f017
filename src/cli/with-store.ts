/** Runs a sub-command's work on the configured database, migrated first and closed after. */
import type { Store } from "../store/types.js";
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
