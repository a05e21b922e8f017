#!/usr/bin/env node
/** The `mailrisk` command: dispatches to one module per sub-command (src/cli/commands.ts). */
import { ConfigError, loadConfig } from "../config.js";
import { openStore } from "../store/index.js";
import { COMMANDS, commandUsage } from "./commands.js";
import type { CliContext } from "./context.js";

/** Every form of every command, each with its one-line summary below it. */
const COMMAND_LINES = COMMANDS.flatMap(({ name, forms }) =>
  forms.map((form) => `  ${commandUsage(name, form)}\n      ${form.summary}\n`),
).join("");

/** `mailrisk help`. */
const HELP = `mailrisk — email and domain risk checks

usage: mailrisk <command> [options]

commands:
${COMMAND_LINES}
configuration comes from the environment (see docs/api.md §9): DATABASE_URL, DNS_SERVERS, …
`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(HELP);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    process.stderr.write(`mailrisk: unknown command "${name}"\n\n${HELP}`);
    return 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mailrisk: configuration error: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const ctx: CliContext = {
    config,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    openStore: () => openStore(config.database),
  };
  return (await command.load())(args, ctx);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`mailrisk: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
