/**
 * What a command takes, read from the forms of the command table (src/cli/commands.ts), so
 * that the usage line is the one declaration of the options and the words:
 *
 * - `--name VALUE` takes a value, `--name` alone is a flag; `VALUE…` in capitals repeats (`--origin O…`);
 * - `<word>` is a word, `<word>…` one or more, `[…]` optional;
 * - any other word (`allow|deny`, `never-disposable`, `<domain>|<kind>`), or a sub-command of
 *   several forms, leaves the words to the command to judge.
 */
import { COMMANDS, type Command, type CommandForm } from "./commands.js";

export interface OptionSpec {
  type: "string" | "boolean";
  multiple?: boolean;
}

/** A `<word>` of a form: what it names in messages, and how many it takes. */
interface Word {
  noun: string;
  optional: boolean;
  repeats: boolean;
}

export interface FormGrammar {
  options: Record<string, OptionSpec>;
  /** The words in order, or null when the command judges them itself. */
  words: Word[] | null;
  takesWords: boolean;
}

/** The sub-command a form belongs to: the first word of its arguments, when that is a plain word. */
export function subcommandOf(form: CommandForm): string | undefined {
  return /^[a-z][a-z0-9-]*(?=\s|$)/.exec(form.args)?.[0];
}

export function commandNamed(name: string): Command {
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) throw new Error(`no command "${name}" in COMMANDS`);
  return command;
}

/** The distinct sub-commands of a command, in the order of its forms. */
export function subcommandsOf(command: Command): string[] {
  return [...new Set(command.forms.map(subcommandOf).filter((word) => word !== undefined))];
}

/** Nouns of `<word>`s besides the word itself; `<id>` and `<name>` are of the command's kind (`keys`: a key id). */
const NOUNS: Record<string, string> = { account: "account id or email", email: "email address", url: "URL" };

function nounOf(command: string, word: string): string {
  if (word === "id" || word === "name") return `${command.replace(/s$/, "")} ${word}`;
  return NOUNS[word] ?? word;
}

/** One form's options and words, in order; `simple` false when a word is not a plain `<word>`. */
function readForm(command: string, args: string) {
  const options: [string, OptionSpec][] = [];
  const words: Word[] = [];
  let simple = true;
  let depth = 0;
  const tokens = args.split(" ").filter((token) => token !== "");
  for (let i = 0; i < tokens.length; i++) {
    const raw = tokens[i] ?? "";
    const opened = raw.length - raw.replace(/^\[+/, "").length;
    const token = raw.slice(opened).replace(/\]+$/, "");
    const closed = raw.length - opened - token.length;
    depth += opened;
    const option = /^--([a-z-]+)$/.exec(token)?.[1];
    const next = tokens[i + 1];
    if (option !== undefined && closed === 0 && next !== undefined && !/^[-[]/.test(next)) {
      options.push([option, { type: "string", ...(/^[A-Z]+…\]*$/.test(next) ? { multiple: true } : {}) }]);
      i++;
      depth -= next.length - next.replace(/\]+$/, "").length;
    } else if (option !== undefined) options.push([option, { type: "boolean" }]);
    else {
      const word = /^<([a-z-]+)>(…)?$/.exec(token);
      if (word?.[1] === undefined) simple = false;
      else
        words.push({ noun: nounOf(command, word[1]), optional: depth > 0, repeats: word[2] !== undefined });
    }
    depth -= closed;
  }
  return { options, words, simple, takesWords: words.length > 0 || !simple };
}

/**
 * The grammar of the forms of a command's sub-command (undefined: a command without any),
 * its word taken off. Options are in the order a message names them: the one each form
 * starts with, then the others.
 */
export function grammarOf(command: Command, sub: string | undefined): FormGrammar {
  const read = command.forms
    .filter((form) => subcommandOf(form) === sub)
    .map((form) => readForm(command.name, form.args.slice(sub?.length ?? 0)));
  const options: Record<string, OptionSpec> = {};
  for (const [name, spec] of [
    ...read.flatMap((form) => form.options.slice(0, 1)),
    ...read.flatMap((form) => form.options),
  ])
    options[name] ??= spec;
  const only = read.length === 1 ? read[0] : undefined;
  return {
    options,
    words: only?.simple ? only.words : null,
    takesWords: read.some((form) => form.takesWords),
  };
}

function article(noun: string): string {
  return /^[aeio]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/**
 * What is wrong with the count of `given` words, in the command's words; undefined when it
 * fits. How many a repeating word takes is its command's (or service's) to judge.
 */
export function wordCountProblem(
  label: string,
  words: readonly Word[],
  given: readonly string[],
): string | undefined {
  const fixed = words.filter((word) => !word.repeats);
  const needed = fixed.filter((word) => !word.optional);
  if (given.length < needed.length)
    return `${label} needs ${needed.map((word) => article(word.noun)).join(" and ")}`;
  if (words.some((word) => word.repeats) || given.length <= fixed.length) return undefined;
  const takes = fixed.map((word) => `${word.optional ? "at most one" : "one"} ${word.noun}`).join(" and ");
  return `${label} takes ${takes}; "${given.slice(fixed.length).join(" ")}" is too much`;
}
