/** `mailrisk migrate` (docs/api.md "Running it"): applies pending database migrations. */
import { parseArguments, usageError } from "./arguments.js";
import type { CliContext } from "./context.js";
import { usageOf } from "./usage-text.js";

const USAGE = usageOf("migrate");

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const parsed = parseArguments({ args, options: {}, allowPositionals: false });
  if (!parsed.ok) return usageError(ctx, parsed.message, USAGE);
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
}
