/** Argument handling shared by the sub-commands: bad arguments say what is wrong, print usage and exit 2. */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { refusalOf } from "../operator/refusal.js";
import type { ProblemCode } from "../service/shared/problem-codes.js";
import type { CliContext } from "./context.js";

export const EXIT_USAGE = 2;

export type ParsedArguments<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/** The options a command takes, as written on the command line. */
function optionNames(config: ParseArgsConfig): string {
  const names = Object.keys(config.options ?? {}).map((name) => `--${name}`);
  return names.length === 0 ? "no options" : names.join(", ");
}

/**
 * What is wrong with the arguments, in our words: `parseArgs`' own messages name
 * options with unbalanced quotes and speak of positionals. Read from a lenient parse's
 * tokens, first problem first.
 */
function argumentProblem(config: ParseArgsConfig, error: unknown): string {
  const options = config.options ?? {};
  const { tokens } = parseArgs({ ...config, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === "option") {
      const spec = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
      if (spec === undefined)
        return `unknown option ${token.rawName} (this command takes ${optionNames(config)})`;
      if (spec.type === "boolean" && token.value !== undefined) return `${token.rawName} takes no value`;
      if (spec.type === "string" && token.value === undefined) return `${token.rawName} needs a value`;
      if (spec.type === "string" && !token.inlineValue && token.value?.startsWith("-")) {
        return `${token.rawName} needs a value, not "${token.value}" (for a value that starts with -, write ${token.rawName}=${token.value})`;
      }
    }
    if (token.kind === "positional" && !config.allowPositionals) {
      return `unexpected argument "${token.value}" (this command takes ${optionNames(config)})`;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

/** `parseArgs` (strict), with a bad argument returned as a message instead of thrown. */
export function parseArguments<T extends ParseArgsConfig>(
  config: T,
): { ok: true; parsed: ParsedArguments<T> } | { ok: false; message: string } {
  try {
    return { ok: true, parsed: parseArgs(config) };
  } catch (error) {
    return { ok: false, message: argumentProblem(config, error) };
  }
}

/** Says what is wrong, then the usage; exit code 2. */
export function usageError(ctx: CliContext, message: string, usage: string): number {
  ctx.stderr.write(`mailrisk: ${message}\n${usage}\n`);
  return EXIT_USAGE;
}

/** A whole number written in digits only, or undefined. */
export function wholeNumber(text: string): number | undefined {
  return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

export type Subcommand = (args: string[], ctx: CliContext) => Promise<number>;

/** What a person may do next after a refusal. */
const HINTS: Partial<Record<ProblemCode, string>> = {
  unknown_key: '; see "mailrisk keys list"',
  unknown_plan: '; see "mailrisk plans list"',
  plan_in_use:
    '; move them to another plan first ("mailrisk keys set-plan <id> <plan>", "mailrisk keys list")',
};

/**
 * Runs `<group> <name> …` from a table of sub-commands; `help` prints the usage. A
 * service's refusal is said on stderr: bad input exits 2 with the usage, anything else 1.
 */
export async function runSubcommand(
  group: string,
  subcommands: Record<string, Subcommand>,
  usage: string,
  args: string[],
  ctx: CliContext,
): Promise<number> {
  const [name, ...rest] = args;
  if (name === "help" || name === "--help" || name === "-h") {
    ctx.stdout.write(`${usage}\n`);
    return 0;
  }
  const names = Object.keys(subcommands).join(", ");
  if (name === undefined) return usageError(ctx, `${group} needs a command: ${names}`, usage);
  const subcommand = Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
  if (!subcommand)
    return usageError(ctx, `unknown ${group} command "${name}" (${group} takes ${names})`, usage);
  try {
    return await subcommand(rest, ctx);
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    if (refusal.badInput) return usageError(ctx, refusal.message, usage);
    ctx.stderr.write(`mailrisk: ${refusal.message}${HINTS[refusal.code] ?? ""}\n`);
    return 1;
  }
}
