#!/usr/bin/env node
/** The `mailrisk` command: dispatches to one module per sub-command. */
import { ConfigError, loadConfig } from "../config.js";
import { openStore } from "../store/index.js";
import type { CliContext } from "./context.js";

type Command = (args: string[], ctx: CliContext) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./serve.js")).run,
  check: async () => (await import("./check.js")).run,
  keys: async () => (await import("./keys.js")).run,
  plans: async () => (await import("./plans.js")).run,
  records: async () => (await import("./records.js")).run,
  overrides: async () => (await import("./overrides.js")).run,
  infra: async () => (await import("./infra.js")).run,
  migrate: async () => (await import("./migrate.js")).run,
  "rdap-bootstrap": async () => (await import("./rdap-bootstrap.js")).run,
};

const HELP = `mailrisk — email and domain risk checks

usage: mailrisk <command> [options]

commands:
  serve [--workers N]                     start the HTTP server (HOST:PORT), N processes (default: cores)
  check <email-or-domain|->… [--json]     check inputs; - reads one per line from stdin
  check --csv [FILE|-] [--column C]       clean a CSV: the same rows with result columns
  keys create --plan P [--name N] [--json] | keys list [--json] | keys show <id> [--json]
  keys set-plan <id> <plan> | keys revoke <id>
  plans create <name> --quota N|unlimited [--period-days D] | plans list [--json]
  plans update <name> [--quota N|unlimited] [--period-days D]
  records purge <domain>… | records purge --all   drop cached records; the next check is fresh
  overrides add allow|deny <domain> | overrides add never-disposable mx-host|mx-ip|ns <value> [--note T]
  overrides remove <domain>|<kind> <value> | overrides list [--json]   the operator's overrides
  infra list [--all] [--json]             mail infrastructure learnt from traffic, with its evidence
  migrate                                 apply database migrations
  rdap-bootstrap update [--url URL] [--out FILE]   refresh the RDAP bootstrap from IANA

configuration comes from the environment (see README): DATABASE_URL, DNS_SERVERS, …
`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(HELP);
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
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
  return (await load())(args, ctx);
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
