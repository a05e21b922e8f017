/** `mailrisk serve`: the same server as `npm start`, on HOST:PORT from the environment. */
import { runServer } from "../server.js";
import type { CliContext } from "./context.js";

export async function run(args: string[], ctx: CliContext): Promise<number> {
  if (args.length > 0) {
    ctx.stderr.write(`mailrisk serve: takes no arguments (configure it with HOST, PORT, …)\n`);
    return 2;
  }
  return runServer(ctx.config, { stdout: ctx.stdout });
}
