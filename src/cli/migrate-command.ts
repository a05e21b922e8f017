/** `mailrisk migrate` (docs/api.md "Running it"): applies pending database migrations. */
import { commandRunner } from "./arguments.js";

export const run = commandRunner("migrate", async (_, ctx) => {
  const store = await ctx.openStore();
  try {
    const applied = await store.migrate();
    for (const name of applied) ctx.stdout.write(`Applied migration ${name}\n`);
    ctx.stdout.write(
      applied.length === 0 ? "Database schema is up to date.\n" : "Database schema is now up to date.\n",
    );
    return 0;
  } finally {
    await store.close();
  }
});
