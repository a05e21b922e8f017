/**
 * The docs tables made from the code: the configuration (src/config-table.ts), the CLI's
 * commands (src/cli/commands.ts) and the verdict rows (src/core/verdict.ts). Each goes
 * between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` in the files of
 * GENERATED_FILES. Pure but for reading those files.
 */
import { readFileSync } from "node:fs";
import { COMMANDS, commandUsage } from "../../src/cli/commands.js";
import { CONFIG_TABLE } from "../../src/config-table.js";
import { EVIDENCE_EXAMPLES, EvidenceItemSchema } from "../../src/core/evidence.js";
import {
  BLOCK_THRESHOLD,
  FIXED_ROWS,
  type FixedStatus,
  LOOKS_OKAY,
  VERDICT_ROWS,
  type VerdictRow,
  type VerdictStatus,
} from "../../src/core/verdict.js";

/** The repository's root, which GENERATED_FILES are relative to. */
export const ROOT = new URL("../../", import.meta.url);

/** The columns a verdict row shows besides its number, situation and risk. */
interface VerdictColumns {
  valid: string;
  block: string;
  text: string;
  reason: string;
}

/** Rows 8–9, which the soft signals name: what their columns say. */
const SOFT_ROWS: Record<Exclude<VerdictStatus, FixedStatus>, VerdictColumns> = {
  risky: {
    valid: "true",
    block: `risk ≥ ${BLOCK_THRESHOLD}`,
    text: "the heaviest signal's text",
    reason: "the heaviest signal's reason",
  },
  ok: { valid: "true", block: "false", text: code(LOOKS_OKAY), reason: "the main category" },
};

/** A table's source, named in the note above it. */
const SOURCES = {
  config: { file: "src/config-table.ts", table: configTable },
  cli: { file: "src/cli/commands.ts", table: cliTable },
  verdicts: { file: "src/core/verdict.ts", table: verdictTable },
  evidence: { file: "src/core/evidence.ts", table: evidenceTable },
} as const;

type TableName = keyof typeof SOURCES;

/** Each docs file with the tables generated into it. */
const GENERATED_FILES: Readonly<Record<string, readonly TableName[]>> = {
  "docs/api.md": ["verdicts", "evidence", "cli", "config"],
  "docs/verdicts.md": ["verdicts"],
};

/** Inline code. */
function code(text: string): string {
  return `\`${text}\``;
}

/** A Markdown table; a `|` in a cell is escaped, also inside code. */
function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell) => cell.replace(/(?<!\\)\|/g, "\\|")).join(" | ")} |`;
  return [line(header), `|${header.map(() => "---|").join("")}`, ...rows.map(line)].join("\n");
}

/** Every environment variable with its default and meaning. */
function configTable(): string {
  return markdownTable(
    ["variable", "default", "meaning"],
    Object.values(CONFIG_TABLE).map((entry) => [code(entry.variable), entry.default, entry.meaning]),
  );
}

/** Every form of every command with what it does and its exit codes. */
function cliTable(): string {
  return markdownTable(
    ["command", "what it does", "exit codes"],
    COMMANDS.flatMap(({ name, forms }) =>
      forms.map((form) => [code(commandUsage(name, form)), form.details, form.exitCodes]),
    ),
  );
}

/** Whether a status is one of rows 0–7, which FIXED_ROWS describes. */
function isFixed(status: VerdictStatus): status is FixedStatus {
  return Object.hasOwn(FIXED_ROWS, status);
}

/** A fixed row's reason as the docs show it: row 5's is followed by the number of heuristics. */
function fixedReason(status: FixedStatus): string {
  const { reason } = FIXED_ROWS[status];
  return status === "heuristics" ? `${code(`${reason}N`)} (e.g. ${code(`${reason}2`)})` : code(reason);
}

/** A row's validity, block, text and reason as the docs show them. */
function verdictColumns({ statuses: [first, ...more] }: VerdictRow): VerdictColumns {
  if (first === undefined) throw new Error("a row of VERDICT_ROWS has no status");
  if (!isFixed(first)) return SOFT_ROWS[first];
  const { valid, blocks, text } = FIXED_ROWS[first];
  return {
    valid: String(valid),
    block: blocks ? "true" : `risk ≥ ${BLOCK_THRESHOLD}`,
    text: code(text),
    reason: [first, ...more].filter(isFixed).map(fixedReason).join(" / "),
  };
}

/** Every verdict row, in the order they are tried; throws when a status has none. */
function verdictTable(): string {
  const shown = new Set(VERDICT_ROWS.flatMap((row) => row.statuses));
  const missing = [...Object.keys(FIXED_ROWS), ...Object.keys(SOFT_ROWS)].filter(
    (status) => !shown.has(status as VerdictStatus),
  );
  if (missing.length > 0) throw new Error(`VERDICT_ROWS has no row for ${missing.join(", ")}`);
  return markdownTable(
    ["#", "situation", "valid", "block", "risk", "text", "reason"],
    VERDICT_ROWS.map((row) => {
      const { valid, block, text, reason } = verdictColumns(row);
      return [row.row, row.when, valid, block, row.risk, text, reason];
    }),
  );
}

/** Every kind of evidence item with its fields, then the example of each kind as the engine gives it. */
function evidenceTable(): string {
  const common = new Set(["kind", "detail", "risk"]);
  const rows = EvidenceItemSchema.anyOf.map((schema) => {
    const kind = String(schema.properties.kind.const);
    const fields = Object.keys(schema.properties)
      .filter((field) => !common.has(field))
      .map(code);
    return [code(kind), (schema as { description?: string }).description ?? "", fields.join(", ")];
  });
  const examples = Object.entries(EVIDENCE_EXAMPLES).map(
    ([kind, { input, item }]) =>
      `${code(kind)}, checking ${code(input)}:

\`\`\`json
${JSON.stringify(item)}
\`\`\``,
  );
  return [
    markdownTable(["kind", "what it says", "its fields besides `kind`, `detail` and `risk`"], rows),
    "One example of each kind, as the engine answers the input named in the test zones (`test/fixtures/zones/engine.json`; the override after `overrides add deny example-selfhosted.test --note chargebacks`, the age for a domain registered 3 days before; the tests hold each to the engine):",
    ...examples,
  ].join("\n\n");
}

/** A generated block: a note naming its source, then the table. */
function block(name: TableName): string {
  const note = `<!-- written by \`npm run docs:tables\` from ${SOURCES[name].file}: edit there -->`;
  return `${note}\n\n${SOURCES[name].table()}\n`;
}

/** `doc` with the block between the markers of `name` replaced by the generated one. */
function withTable(doc: string, file: string, name: TableName): string {
  const start = `<!-- generated:${name} -->`;
  const end = `<!-- /generated:${name} -->`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} lacks the markers ${start} … ${end}`);
  return `${doc.slice(0, from + start.length)}\n${block(name)}\n${doc.slice(to)}`;
}

/** A docs file as it is and as it is with its tables generated from the code. */
export interface GeneratedFile {
  file: string;
  current: string;
  expected: string;
}

/** Every file of GENERATED_FILES, read and regenerated. */
export function generatedFiles(): GeneratedFile[] {
  return Object.entries(GENERATED_FILES).map(([file, names]) => {
    const current = readFileSync(new URL(file, ROOT), "utf8");
    return { file, current, expected: names.reduce((doc, name) => withTable(doc, file, name), current) };
  });
}
