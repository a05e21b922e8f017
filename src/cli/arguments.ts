/**
 * Running a command from its forms in the command table (src/cli/commands.ts): the
 * sub-command is chosen, its options and the count of its words checked as the forms
 * declare them (src/cli/form-grammar.ts), and its handler gets what was given. Bad
 * arguments say what is wrong, print the usage and exit 2; a service's refusal is said on
 * stderr: bad input exits 2 with the usage, anything else 1.
 */
import { parseArgs } from "node:util";
import { refusalOf } from "../operator/refusal.js";
import type { ProblemCode } from "../service/shared/problem-codes.js";
import type { Command, CommandName, SubcommandOf } from "./commands.js";
import type { CliContext } from "./context.js";
import {
  commandNamed,
  type FormGrammar,
  grammarOf,
  type OptionSpec,
  subcommandsOf,
  wordCountProblem,
} from "./form-grammar.js";
import { usageOf } from "./usage-text.js";

export const EXIT_USAGE = 2;

/** Where a command writes (tests pass their own streams). */
type Io = Pick<CliContext, "stdout" | "stderr">;

/** What a command was given, checked against its form: its words, its options' values, and its usage. */
export class Given {
  constructor(
    readonly words: string[],
    private readonly values: Record<string, string | boolean | (string | boolean)[] | undefined>,
    private readonly options: Record<string, OptionSpec>,
    readonly usage: string,
  ) {}

  private value(name: string, type: OptionSpec["type"], multiple = false) {
    const spec = this.options[name];
    if (spec?.type !== type || (spec.multiple === true) !== multiple)
      throw new Error(`the form declares no ${type} option --${name}${multiple ? "…" : ""}`);
    return this.values[name];
  }

  /** A `--name VALUE` option's value, or undefined. */
  text(name: string): string | undefined {
    return this.value(name, "string") as string | undefined;
  }

  /** Whether `--json` was given; a form without that option answers in text. */
  get json(): boolean {
    return this.values.json === true;
  }

  /** Whether a `--name` flag was given. */
  flag(name: string): boolean {
    return this.value(name, "boolean") === true;
  }

  /** A repeating `--name VALUE…` option's values. */
  list(name: string): string[] {
    return (this.value(name, "string", true) as string[] | undefined) ?? [];
  }
}

/** The options a command takes, as written on the command line. */
function optionNames(grammar: FormGrammar): string {
  const names = Object.keys(grammar.options).map((name) => `--${name}`);
  return names.length === 0 ? "no options" : names.join(", ");
}

/**
 * What is wrong with the arguments, in our words: `parseArgs`' own messages name options
 * with unbalanced quotes and speak of positionals. Read from a lenient parse's tokens.
 */
function argumentProblem(grammar: FormGrammar, args: string[]): string | undefined {
  const { tokens } = parseArgs({
    args,
    options: grammar.options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind === "option") {
      const spec = Object.hasOwn(grammar.options, token.name) ? grammar.options[token.name] : undefined;
      if (spec === undefined)
        return `unknown option ${token.rawName} (this command takes ${optionNames(grammar)})`;
      if (spec.type === "boolean" && token.value !== undefined) return `${token.rawName} takes no value`;
      if (spec.type === "string" && token.value === undefined) return `${token.rawName} needs a value`;
      if (spec.type === "string" && !token.inlineValue && token.value?.startsWith("-")) {
        return `${token.rawName} needs a value, not "${token.value}" (for a value that starts with -, write ${token.rawName}=${token.value})`;
      }
    }
    if (token.kind === "positional" && !grammar.takesWords) {
      return `unexpected argument "${token.value}" (this command takes ${optionNames(grammar)})`;
    }
  }
  return undefined;
}

/** Says what is wrong, then the usage (when given); exit code 2. */
export function usageError(io: Pick<Io, "stderr">, message: string, usage?: string): number {
  io.stderr.write(`mailrisk: ${message}\n${usage === undefined ? "" : `${usage}\n`}`);
  return EXIT_USAGE;
}

/** Says what failed; exit code 1. */
export function failed(io: Pick<Io, "stderr">, message: string): number {
  io.stderr.write(`mailrisk: ${message}\n`);
  return 1;
}

/** A whole number written in digits only, or undefined. */
export function wholeNumber(text: string): number | undefined {
  return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/** What a person may do next after a refusal. */
const HINTS: Partial<Record<ProblemCode, string>> = {
  unknown_key: '; see "mailrisk keys list"',
  unknown_plan: '; see "mailrisk plans list"',
  plan_in_use:
    '; move them to another plan first ("mailrisk keys set-plan <id> <plan>", "mailrisk keys list")',
};

export type Handler<Context extends Io> = (given: Given, ctx: Context) => Promise<number>;

/** One handler per sub-command of the command, or one for a command without any. */
export type Handlers<Name extends CommandName, Context extends Io> = [SubcommandOf<Name>] extends [never]
  ? Handler<Context>
  : { readonly [Sub in SubcommandOf<Name>]: Handler<Context> };

/** Checks the arguments against the forms of `sub`; the handler's input, or what is wrong. */
function given(command: Command, sub: string | undefined, args: string[], usage: string): Given | string {
  const grammar = grammarOf(command, sub);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: grammar.options, allowPositionals: grammar.takesWords });
  } catch (error) {
    return argumentProblem(grammar, args) ?? (error instanceof Error ? error.message : String(error));
  }
  const label = sub === undefined ? command.name : `${command.name} ${sub}`;
  const wrongCount = grammar.words && wordCountProblem(label, grammar.words, parsed.positionals);
  return wrongCount ?? new Given(parsed.positionals, parsed.values, grammar.options, usage);
}

/**
 * A command's run: `<name> [<sub-command>] …` from its handlers; `help` as the sub-command
 * prints the usage.
 */
export function commandRunner<Name extends CommandName, Context extends Io = CliContext>(
  name: Name,
  handlers: Handlers<Name, Context>,
): (args: string[], ctx: Context) => Promise<number> {
  const command = commandNamed(name);
  const subcommands = subcommandsOf(command);
  return async (args, ctx) => {
    const sub = subcommands.length === 0 ? undefined : args[0];
    if (subcommands.length > 0 && !subcommands.includes(sub ?? "")) {
      if (sub === "help" || sub === "--help" || sub === "-h") {
        ctx.stdout.write(`${usageOf(name)}\n`);
        return 0;
      }
      const names = subcommands.join(", ");
      const message =
        sub === undefined
          ? `${name} needs a command: ${names}`
          : `unknown ${name} command "${sub}" (${name} takes ${names})`;
      return usageError(ctx, message, usageOf(name));
    }
    const usage = usageOf(name, sub);
    const input = given(command, sub, subcommands.length === 0 ? args : args.slice(1), usage);
    if (typeof input === "string") return usageError(ctx, input, usage);
    const handler =
      sub === undefined
        ? (handlers as Handler<Context>)
        : (handlers as Record<string, Handler<Context>>)[sub];
    if (!handler) throw new Error(`no handler for ${name} ${sub}`);
    try {
      return await handler(input, ctx);
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      if (refusal.badInput) return usageError(ctx, refusal.message, usage);
      return failed(ctx, `${refusal.message}${HINTS[refusal.code] ?? ""}`);
    }
  };
}
