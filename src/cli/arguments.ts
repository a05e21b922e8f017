/** Argument handling shared by the sub-commands: bad arguments print usage and exit 2. */
import { type ParseArgsConfig, parseArgs } from "node:util";
import type { CliContext } from "./context.js";

export const EXIT_USAGE = 2;

export type ParsedArguments<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/** `parseArgs` (strict), with a bad argument returned as a message instead of thrown. */
export function parseArguments<T extends ParseArgsConfig>(
  config: T,
): { ok: true; parsed: ParsedArguments<T> } | { ok: false; message: string } {
  try {
    return { ok: true, parsed: parseArgs(config) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

export function usageError(ctx: CliContext, message: string, usage: string): number {
  ctx.stderr.write(`mailrisk: ${message}\n${usage}\n`);
  return EXIT_USAGE;
}

/** A whole number written in digits only, or undefined. */
export function wholeNumber(text: string): number | undefined {
  return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

export type Subcommand = (args: string[], ctx: CliContext) => Promise<number>;

/** Runs `<group> <name> …` from a table of sub-commands; `help` prints the usage. */
export function runSubcommand(
  group: string,
  subcommands: Record<string, Subcommand>,
  usage: string,
  args: string[],
  ctx: CliContext,
): Promise<number> | number {
  const [name, ...rest] = args;
  if (name === "help" || name === "--help" || name === "-h") {
    ctx.stdout.write(`${usage}\n`);
    return 0;
  }
  if (name === undefined) return usageError(ctx, `${group} needs a command`, usage);
  const subcommand = Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
  if (!subcommand) return usageError(ctx, `unknown ${group} command "${name}"`, usage);
  return subcommand(rest, ctx);
}
