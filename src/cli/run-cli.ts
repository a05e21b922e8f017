/**
 * The `mailrisk` command line (src/cli/main.ts runs it): global options, help, the
 * version, the configuration, then the command's module, `<name>-command.ts` (src/cli/commands.ts).
 *
 * - `--help` (or `-h`) anywhere before `--` prints the command's (or sub-command's) help;
 *   `mailrisk help [<command> [<sub-command>]]` too. `--version` prints the version.
 * - `--verbose` anywhere before `--` names the database on stderr, as a terminal does.
 * - Opening a database that is not there: only serve and migrate create one; any other
 *   command names the path it looked at and how to choose another, and exits 2.
 * - A database that cannot be reached ends the command with its cause and exit 1.
 */
import { readFileSync } from "node:fs";
import { ConfigError, loadConfig } from "../config.js";
import { packagePath } from "../package-root.js";
import { describeDatabase, StoreUnavailableError } from "../store/index.js";
import { EXIT_USAGE, failed, usageError } from "./arguments.js";
import { COMMANDS, type CommandName } from "./commands.js";
import { type CliContext, createCliContext, NoDatabaseError } from "./context.js";
import { terminalStream } from "./terminal-text.js";
import { commandHelp, overallHelp } from "./usage-text.js";

export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** The version of the installed package (package.json, beside src/ and dist/). */
export function packageVersion(): string {
  const json = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as {
    version?: unknown;
  };
  return typeof json.version === "string" ? json.version : "unknown";
}

/** Runs a command on its arguments; resolves to the exit code. */
type CommandRun = (args: string[], ctx: CliContext) => Promise<number>;

/**
 * Each command's module, `src/cli/<name>-command.ts`, loaded only when it runs: the build
 * (scripts/build-dist.mjs) makes each a chunk of its own, so `mailrisk keys list` does not
 * load the server, nor `serve` the other commands.
 */
const COMMAND_MODULES: Record<CommandName, () => Promise<{ run: CommandRun }>> = {
  accounts: () => import("./accounts-command.js"),
  audit: () => import("./audit-command.js"),
  check: () => import("./check-command.js"),
  demo: () => import("./demo-command.js"),
  infra: () => import("./infra-command.js"),
  jobs: () => import("./jobs-command.js"),
  keys: () => import("./keys-command.js"),
  lists: () => import("./lists-command.js"),
  migrate: () => import("./migrate-command.js"),
  overrides: () => import("./overrides-command.js"),
  plans: () => import("./plans-command.js"),
  "rdap-bootstrap": () => import("./rdap-bootstrap-command.js"),
  records: () => import("./records-command.js"),
  reports: () => import("./reports-command.js"),
  serve: () => import("./serve-command.js"),
  stats: () => import("./stats-command.js"),
  webhooks: () => import("./webhooks-command.js"),
};

async function commandModule(name: CommandName): Promise<CommandRun> {
  return (await COMMAND_MODULES[name]()).run;
}

const HELP_FLAGS = new Set(["--help", "-h"]);
const VERSION_FLAGS = new Set(["--version", "-V"]);

/** The arguments before `--` without `--verbose`, whether it was there, and the rest from `--` on. */
function splitGlobal(argv: readonly string[]) {
  const end = argv.indexOf("--");
  const head = end < 0 ? argv.slice() : argv.slice(0, end);
  const tail = end < 0 ? [] : argv.slice(end);
  const verbose = head.includes("--verbose");
  return { head: head.filter((arg) => arg !== "--verbose"), tail, verbose };
}

/** Runs the command line; resolves to the exit code. Everything written is terminal text (terminal-text.ts). */
export async function runCli(argv: readonly string[], given: CliIo): Promise<number> {
  const io = { ...given, stdout: terminalStream(given.stdout), stderr: terminalStream(given.stderr) };
  const { head, tail, verbose } = splitGlobal(argv);
  const [name, ...rest] = head;
  if (name === undefined) {
    io.stderr.write(`mailrisk: a command is needed\n\n${overallHelp()}`);
    return EXIT_USAGE;
  }
  if (VERSION_FLAGS.has(name) || name === "version") {
    io.stdout.write(`mailrisk ${packageVersion()}\n`);
    return 0;
  }
  const names: string[] = COMMANDS.map((command) => command.name);
  if (HELP_FLAGS.has(name) || name === "help") {
    const [topic, sub] = rest.filter((arg) => !HELP_FLAGS.has(arg));
    if (topic === undefined) io.stdout.write(overallHelp());
    else if (!names.includes(topic))
      return usageError(io, `unknown command "${topic}" (commands: ${names.join(", ")})`);
    else io.stdout.write(commandHelp(topic, sub));
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    return usageError(
      io,
      `unknown command "${name}" (commands: ${names.join(", ")}); "mailrisk help" tells more`,
    );
  }
  if (rest.some((arg) => HELP_FLAGS.has(arg))) {
    const sub = rest.find((arg) => !arg.startsWith("-"));
    io.stdout.write(commandHelp(name, sub));
    return 0;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(io.env, io.cwd);
  } catch (error) {
    if (error instanceof ConfigError) return usageError(io, `configuration error: ${error.message}`);
    throw error;
  }
  const ctx = createCliContext(
    config,
    { stdin: io.stdin, stdout: io.stdout, stderr: io.stderr },
    { mayCreateDatabase: command.createsDatabase === true, verbose, cwd: io.cwd },
  );
  try {
    return await (await commandModule(command.name))([...rest, ...tail], ctx);
  } catch (error) {
    if (error instanceof NoDatabaseError) return usageError(io, error.message);
    if (error instanceof StoreUnavailableError)
      return failed(io, `${error.detail} (${describeDatabase(config.database)}; DATABASE_URL sets it)`);
    throw error;
  }
}
