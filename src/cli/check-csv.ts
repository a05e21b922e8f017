/**
 * `mailrisk check --csv` (docs/api.md §9, README "Clean a list"): reads a CSV with a
 * header row (RFC 4180: quoted fields with delimiters, quotes and line breaks inside, a
 * UTF-8 BOM, CRLF or LF) with csv-parse, finds the address column, and writes the same
 * CSV with csv-stringify: every original cell as it was read, plus the result columns.
 * The output keeps the input's BOM and line ending; quoting is csv-stringify's (a field
 * is quoted when it must be), so a cell reads back byte for byte, not always its quotes.
 */
import { Transform, type TransformCallback } from "node:stream";
import { parse } from "csv-parse";
import { stringify } from "csv-stringify/sync";
import type { CheckRecord } from "../core/record.js";
import type { CheckOutcome } from "../service/check-many.js";

/** Header names taken for the address column when `--column` is not given, in this order (compared without case, spaces, `-`, `_`, `.`). */
export const EMAIL_COLUMN_NAMES = [
  "email",
  "emailaddress",
  "mail",
  "mailaddress",
  "useremail",
  "contactemail",
  "address",
  "domain",
] as const;

/** A record field a CSV cell can show: a scalar, or a list of strings. */
type CellField = {
  [Field in keyof CheckRecord]: CheckRecord[Field] extends string | number | boolean | string[]
    ? Field
    : never;
}[keyof CheckRecord];

/** The result columns appended to every row, in this order, each with the record field it shows (README "Clean a list"). */
const RESULT_FIELDS = [
  ["mr_valid", "valid"],
  ["mr_block", "block"],
  ["mr_risk", "risk"],
  ["mr_reason", "reason"],
  ["mr_domain", "domain"],
  ["mr_disposable", "is_disposable"],
  ["mr_role", "is_role_based_email"],
  ["mr_free", "is_public_free"],
  ["mr_typo", "possible_typo"],
  ["mr_mx_host", "mx_host"],
  ["mr_provider", "email_provider"],
] as const satisfies readonly (readonly [string, CellField])[];

type ResultColumn = (typeof RESULT_FIELDS)[number][0];

/** The result columns' names, in their order. */
export const RESULT_COLUMNS: readonly ResultColumn[] = RESULT_FIELDS.map(([column]) => column);

export interface CsvRow {
  /** The cells as read, the short ones padded with empty cells to the header's width. */
  cells: string[];
  /** Bytes of the input read when this row was parsed (progress; ahead by at most a chunk). */
  bytes: number;
}

/** What the first bytes of a CSV told: a BOM, and the line ending of its first line. */
export interface CsvLayout {
  bom: boolean;
  recordDelimiter: "\r\n" | "\n";
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LF = 0x0a;
const CR = 0x0d;

/** Passes bytes through, counts them, and notes the BOM and the first line ending. */
class LayoutSniffer extends Transform {
  readonly layout: CsvLayout = { bom: false, recordDelimiter: "\n" };
  /** Bytes passed on to the parser so far. */
  seen = 0;
  private lineEndingKnown = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.seen === 0 && chunk.subarray(0, 3).equals(BOM)) this.layout.bom = true;
    if (!this.lineEndingKnown) {
      const lf = chunk.indexOf(LF);
      if (lf >= 0) {
        this.lineEndingKnown = true;
        if (lf > 0 ? chunk[lf - 1] === CR : this.lastByte === CR) this.layout.recordDelimiter = "\r\n";
      }
    }
    this.lastByte = chunk[chunk.length - 1];
    this.seen += chunk.length;
    done(null, chunk);
  }

  private lastByte: number | undefined;
}

export class CsvError extends Error {
  override name = "CsvError";
}

export interface CsvInput {
  header: string[];
  layout: CsvLayout;
  rows: AsyncGenerator<CsvRow>;
}

/** Reads the header, then yields the rows as they arrive. A malformed CSV rejects with `CsvError`. */
export async function readCsv(stream: NodeJS.ReadableStream, delimiter: string): Promise<CsvInput> {
  const sniffer = new LayoutSniffer();
  const parser = parse({
    bom: true,
    delimiter,
    relax_quotes: true,
    relax_column_count_less: true,
  });
  stream.on("error", (error) => parser.destroy(error));
  stream.pipe(sniffer).pipe(parser);
  const records = parser[Symbol.asyncIterator]() as AsyncIterator<string[]>;
  const next = async () => {
    try {
      return await records.next();
    } catch (error) {
      throw new CsvError(error instanceof Error ? error.message : String(error));
    }
  };
  const first = await next();
  const header = first.done ? [] : first.value;
  async function* rows(): AsyncGenerator<CsvRow> {
    try {
      for (let result = await next(); !result.done; result = await next()) {
        const record = result.value;
        const cells =
          record.length < header.length
            ? [...record, ...Array(header.length - record.length).fill("")]
            : record;
        yield { cells, bytes: sniffer.seen };
      }
    } finally {
      parser.destroy();
    }
  }
  return { header, layout: sniffer.layout, rows: rows() };
}

function normalName(name: string): string {
  return name.toLowerCase().replace(/[\s_.-]+/g, "");
}

/**
 * The index of the address column: `--column` as a header name (exact, then without
 * case) or a 1-based number; without it, the first header named like an address.
 */
export function findColumn(header: readonly string[], column: string | undefined): number | string {
  if (column !== undefined) {
    const exact = header.indexOf(column);
    if (exact >= 0) return exact;
    const loose = header.findIndex((name) => name.trim().toLowerCase() === column.trim().toLowerCase());
    if (loose >= 0) return loose;
    if (/^\d+$/.test(column) && Number(column) >= 1 && Number(column) <= header.length)
      return Number(column) - 1;
    return `no column "${column}" in the header (${header.length} columns: ${header.join(", ")})`;
  }
  const names = header.map(normalName);
  for (const wanted of EMAIL_COLUMN_NAMES) {
    const index = names.indexOf(wanted);
    if (index >= 0) return index;
  }
  return `no column named like an address (${EMAIL_COLUMN_NAMES.join(", ")}); name it with --column NAME|NUMBER`;
}

/** The result cells of one row (README "Clean a list" says what each means). */
export function resultCells(outcome: CheckOutcome): string[] {
  if ("problem" in outcome) {
    const { code, detail } = outcome.problem;
    const cells: Partial<Record<ResultColumn, string>> = {
      mr_valid: "false",
      mr_block: "true",
      mr_reason: `${code}: ${detail}`,
    };
    return RESULT_COLUMNS.map((column) => cells[column] ?? "");
  }
  const { record } = outcome;
  return RESULT_FIELDS.map(([, field]) => cellOf(record[field]));
}

/** A field's value as a cell: a list of strings space-separated. */
function cellOf(value: CheckRecord[CellField]): string {
  return Array.isArray(value) ? value.join(" ") : String(value);
}

/** Formats rows as CSV lines with the input's delimiter and line ending. */
export function csvWriter(layout: CsvLayout, delimiter: string) {
  const options = { delimiter, record_delimiter: layout.recordDelimiter, eof: true } as const;
  return {
    header: (header: readonly string[]) =>
      (layout.bom ? "\ufeff" : "") + stringify([[...header, ...RESULT_COLUMNS]], options),
    row: (cells: readonly string[], outcome: CheckOutcome) =>
      stringify([[...cells, ...resultCells(outcome)]], options),
  };
}
