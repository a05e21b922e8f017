/**
 * Every usage and help text of the CLI, made from the command table (src/cli/commands.ts),
 * so the forms are written once: `mailrisk help`, `mailrisk <command> --help`,
 * `mailrisk <command> <sub-command> --help`, and the usage lines after a usage error.
 */
import { COMMANDS, type Command, type CommandForm, commandUsage } from "./commands.js";
import { commandNamed, subcommandOf } from "./form-grammar.js";

/** Options every command takes (handled by the dispatcher, src/cli/run-cli.ts). */
const GLOBAL_OPTIONS = `global options: --help (this text, for any command or sub-command), --verbose (name the
database on stderr), --version
configuration comes from the environment (docs/api.md, “Running it”): DATABASE_URL, STATE_DIR, DNS_SERVERS, …`;

const WIDTH = 88;

/** The forms of a command, or only those of one of its sub-commands (all of them when it has no such one). */
function formsOf(command: Command, subcommand?: string): readonly CommandForm[] {
  const forms = command.forms.filter((form) => subcommandOf(form) === subcommand);
  return subcommand === undefined || forms.length === 0 ? command.forms : forms;
}

/** `usage: mailrisk keys create …` and one aligned line per further form. */
export function usageOf(name: string, subcommand?: string): string {
  const command = commandNamed(name);
  return formsOf(command, subcommand)
    .map((form, i) => `${i === 0 ? "usage: " : "       "}mailrisk ${commandUsage(command.name, form)}`)
    .join("\n");
}

/** A form's Markdown details as plain text: no backticks, links as the docs file they name, `\|` as `|`. */
function plainText(markdown: string): string {
  return markdown
    .replace(/\[([^\]]+)\]\(([^)#]+)[^)]*\)/g, (_, text: string, file: string) =>
      text === file ? `docs/${file}` : `${text} (docs/${file})`,
    )
    .replaceAll("`", "")
    .replaceAll("\\|", "|")
    .replace(/§(\d+)/g, "docs/api.md §$1");
}

/** Words wrapped to WIDTH, each line indented. */
function wrap(text: string, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(indent + line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(indent + line);
  return lines.join("\n");
}

/** `mailrisk <command> [<sub-command>] --help`: the usage, then each form in full with its exit codes. */
export function commandHelp(name: string, subcommand?: string): string {
  const command = commandNamed(name);
  const forms = formsOf(command, subcommand).map(
    (form) =>
      `  mailrisk ${commandUsage(command.name, form)}\n${wrap(`${plainText(form.details)}.`, "      ")}\n${wrap(`exit codes: ${form.exitCodes}`, "      ")}`,
  );
  return `${usageOf(name, subcommand)}\n\n${forms.join("\n\n")}\n\n${GLOBAL_OPTIONS}\n`;
}

/** `mailrisk help`: every form of every command, each with its one-line summary. */
export function overallHelp(): string {
  const lines = COMMANDS.flatMap(({ name, forms }) =>
    forms.map((form) => `  ${commandUsage(name, form)}\n      ${form.summary}\n`),
  ).join("");
  return `mailrisk — email and domain risk checks

usage: mailrisk <command> [options]

commands:
${lines}
"mailrisk <command> --help" tells more of a command.
${GLOBAL_OPTIONS}
`;
}
