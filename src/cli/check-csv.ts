/**
 * `mailrisk check --csv` (docs/cleaning.md): reads a CSV with a header row (RFC 4180:
 * quoted fields with delimiters, quotes and line breaks inside, CRLF or LF) with
 * csv-parse, finds the address column, and writes the same CSV with csv-stringify: every
 * original cell as it was read, plus the result columns.
 *
 * - Encoding: UTF-8 unless a BOM says UTF-16, or `--encoding` names latin1,
 *   windows-1252 or utf-16. UTF-8 that is not valid is refused with its line, never
 *   read as replacement characters. The output is UTF-8, with a BOM when the input had one.
 * - Delimiter: `--delimiter`, else sniffed from the first lines (`,` `;` tab `|`).
 * - Shape: every output row has the header's cells. A row with fewer or more cells than
 *   the header is kept, not checked, and says so in `mr_reason`: a short one padded
 *   with empty cells, a long one with its extra cells kept in its last cell, joined by
 *   the delimiter.
 * - Quoting: a cell is quoted when it holds the delimiter, a quote, CR or LF, whatever
 *   the line ending of the file, so every row reads back as one record.
 */
import { isUtf8 } from "node:buffer";
import { Readable } from "node:stream";
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

/** The result columns appended to every row, in this order, each with the record field it shows (docs/cleaning.md). */
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

/** The delimiters sniffed when `--delimiter` is not given, the first wins a tie. */
export const SNIFFED_DELIMITERS = [",", ";", "\t", "|"] as const;

/** What `--encoding` takes, and the decoder each one names. */
export const CSV_ENCODINGS = {
  "utf-8": "utf-8",
  utf8: "utf-8",
  latin1: "windows-1252",
  "iso-8859-1": "windows-1252",
  "windows-1252": "windows-1252",
  cp1252: "windows-1252",
  "utf-16": "utf-16le",
  "utf-16le": "utf-16le",
  "utf-16be": "utf-16be",
} as const;

export type CsvEncoding = keyof typeof CSV_ENCODINGS;

export interface CsvRow {
  /** The cells as read, exactly as many as the header has (see `cellCount`). */
  cells: string[];
  /** Bytes of the input read when this row was parsed (progress; ahead by at most a chunk). */
  bytes: number;
  /** The line of the file the row starts on (1: the header). */
  line: number;
  /** The cells the row had when that is not the header's count (it was padded or folded); else undefined. */
  cellCount?: number;
}

/** How the CSV was read: its BOM, line ending, delimiter and encoding. */
export interface CsvLayout {
  bom: boolean;
  recordDelimiter: "\r\n" | "\n";
  delimiter: string;
  /** The delimiter was sniffed, not given. */
  sniffed: boolean;
  /** The decoder used: `utf-8`, `windows-1252`, `utf-16le` or `utf-16be`. */
  encoding: string;
}

/** A CSV that cannot be read (bytes that are not the encoding, a quote never closed): the run stops. */
export class CsvError extends Error {
  override name = "CsvError";
}

export interface CsvInput {
  header: string[];
  layout: CsvLayout;
  rows: AsyncGenerator<CsvRow>;
  /** Stops reading (the rows will not be taken). */
  close(): void;
}

export interface CsvOptions {
  /** `--delimiter`; undefined: sniffed. */
  delimiter?: string;
  /** `--encoding`; undefined: UTF-8, unless a BOM says UTF-16. */
  encoding?: CsvEncoding;
}

/** Bytes read before the layout is decided. */
const HEAD_BYTES = 64 * 1024;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LF = 0x0a;

const ENCODING_HINT =
  "name its encoding with --encoding latin1, --encoding windows-1252 (Excel on Windows) or --encoding utf-16";

/** Counts the lines of the UTF-8 the parser consumed: records report how far they reach, in bytes. */
class LineCounter {
  private readonly chunks: Buffer[] = [];
  /** Offset in the first chunk. */
  private at = 0;
  /** Line of the next byte (1-based). */
  line = 1;

  push(bytes: Buffer): void {
    if (bytes.length > 0) this.chunks.push(bytes);
  }

  /** Moves on by `count` bytes, counting their newlines. */
  advance(count: number): void {
    let left = count;
    while (left > 0 && this.chunks.length > 0) {
      const chunk = this.chunks[0] as Buffer;
      const take = Math.min(left, chunk.length - this.at);
      this.line += newlines(chunk, this.at, this.at + take);
      this.at += take;
      left -= take;
      if (this.at === chunk.length) {
        this.chunks.shift();
        this.at = 0;
      }
    }
  }
}

/** Newlines in `bytes` (every record delimiter and line break inside a cell has one). */
function newlines(bytes: Buffer, from = 0, to = bytes.length): number {
  let count = 0;
  for (let i = bytes.indexOf(LF, from); i >= 0 && i < to; i = bytes.indexOf(LF, i + 1)) count++;
  return count;
}

/** Length of the UTF-8 sequence a lead byte starts; 0 for a byte that starts none. */
function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

/** Where the bytes stop being whole UTF-8 sequences: the start of a sequence cut at the end, else the length. */
function wholeSequencesEnd(bytes: Buffer): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) !== 0x80) return sequenceLength(byte) > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** The offset of the first byte that is not valid UTF-8 (RFC 3629: no overlongs, surrogates or > U+10FFFF). */
function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    const length = sequenceLength(lead);
    if (length === 0) return i;
    const second = bytes[i + 1] ?? 0;
    if (length >= 2) {
      const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
      const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
      if (second < low || second > high) return i;
      for (let k = 2; k < length; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return bytes.length;
}

/**
 * Windows-1252's characters for the bytes 0x80–0x9F (the rest is Latin-1); the five it
 * leaves undefined keep their C1 control. Node's TextDecoder reads "windows-1252" as
 * Latin-1, so the table is here.
 */
const WINDOWS_1252_HIGH = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ";

/** Windows-1252 (and Latin-1, as browsers read it) to text: one character per byte. */
function windows1252(bytes: Buffer): string {
  return bytes
    .toString("latin1")
    .replace(/[\u0080-\u009f]/g, (char) => WINDOWS_1252_HIGH[char.charCodeAt(0) - 0x80] as string);
}

/** Turns bytes into UTF-8 as they come (UTF-8 itself validated, not copied); refuses invalid UTF-8 with its line. */
class Decoder {
  private carry = Buffer.alloc(0);
  /** Line of the next byte (1-based). */
  private line = 1;
  private readonly decoder: InstanceType<typeof TextDecoder> | undefined;

  constructor(readonly encoding: string) {
    this.decoder =
      encoding === "utf-8" || encoding === "windows-1252"
        ? undefined
        : new TextDecoder(encoding, { fatal: true });
  }

  decode(chunk: Buffer, last: boolean): Buffer {
    if (this.encoding === "windows-1252") {
      const utf8 = Buffer.from(windows1252(chunk), "utf8");
      this.line += newlines(utf8);
      return utf8;
    }
    if (this.decoder) {
      try {
        const utf8 = Buffer.from(this.decoder.decode(chunk, { stream: !last }), "utf8");
        this.line += newlines(utf8);
        return utf8;
      } catch {
        throw new CsvError(`the CSV is not valid ${this.encoding} after line ${this.line}`);
      }
    }
    const bytes = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const end = last ? bytes.length : wholeSequencesEnd(bytes);
    const whole = bytes.subarray(0, end);
    if (!isUtf8(whole)) {
      const at = firstInvalidUtf8(whole);
      let line = this.line;
      for (let i = whole.indexOf(LF); i >= 0 && i < at; i = whole.indexOf(LF, i + 1)) line++;
      const byte = (whole[at] as number).toString(16).toUpperCase().padStart(2, "0");
      throw new CsvError(
        `the CSV is not valid UTF-8: line ${line} has the byte 0x${byte}, which UTF-8 does not allow there; if the file is in another encoding, ${ENCODING_HINT}`,
      );
    }
    this.carry = Buffer.from(bytes.subarray(end));
    this.line += newlines(whole);
    return whole;
  }
}

/** Counts of `delimiter` in each of the first lines of `text`, outside quotes. */
function countsPerLine(text: string, delimiter: string, lines: number): number[] {
  const counts: number[] = [0];
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === "\n") {
      if (counts.length === lines) break;
      counts.push(0);
    } else if (!quoted && char === delimiter) counts[counts.length - 1] = (counts.at(-1) ?? 0) + 1;
  }
  return counts;
}

/**
 * The delimiter of the first lines: of `,` `;` tab `|`, the one the header holds and the
 * most following lines hold as often, then the one the header holds most; `,` when the
 * header holds none (a file of one column).
 */
export function sniffDelimiter(text: string): string {
  let best: { delimiter: string; consistent: number; count: number } = {
    delimiter: ",",
    consistent: -1,
    count: 0,
  };
  for (const delimiter of SNIFFED_DELIMITERS) {
    const [header = 0, ...rest] = countsPerLine(text, delimiter, 20);
    if (header === 0) continue;
    const consistent = rest.filter((count) => count === header).length;
    if (consistent > best.consistent || (consistent === best.consistent && header > best.count)) {
      best = { delimiter, consistent, count: header };
    }
  }
  return best.delimiter;
}

/** The first HEAD_BYTES (or all) of a stream, and an iterator over the rest. */
async function readHead(stream: NodeJS.ReadableStream) {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const head: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size < HEAD_BYTES) {
    const next = await chunks.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = typeof next.value === "string" ? Buffer.from(next.value) : next.value;
    head.push(chunk);
    size += chunk.length;
  }
  return { head: Buffer.concat(head), chunks, ended };
}

/** The BOM and the decoder: a BOM decides, else `--encoding`, else UTF-8. */
function encodingOf(head: Buffer, given: CsvEncoding | undefined): { bom: number; encoding: string } {
  if (head.subarray(0, 3).equals(UTF8_BOM)) return { bom: 3, encoding: "utf-8" };
  if (head[0] === 0xff && head[1] === 0xfe) return { bom: 2, encoding: "utf-16le" };
  if (head[0] === 0xfe && head[1] === 0xff) return { bom: 2, encoding: "utf-16be" };
  return { bom: 0, encoding: given === undefined ? "utf-8" : CSV_ENCODINGS[given] };
}

/** Records held before the parser is paused (backpressure), and the count at which it resumes. */
const HELD_RECORDS = 256;

/**
 * A stream's records, pulled one at a time: every record it emitted comes before its
 * error (an async iterator of the stream would drop the records still buffered).
 */
function recordsOf<T>(stream: NodeJS.ReadableStream & { isPaused(): boolean }): {
  next(): Promise<IteratorResult<T>>;
} {
  const held: T[] = [];
  let failure: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const woken = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  stream.on("data", (record: T) => {
    held.push(record);
    if (held.length >= HELD_RECORDS) stream.pause();
    woken();
  });
  stream.on("end", () => {
    ended = true;
    woken();
  });
  stream.on("error", (error) => {
    failure ??= error;
    woken();
  });
  return {
    async next() {
      for (;;) {
        const record = held.shift();
        if (record !== undefined) {
          if (held.length < HELD_RECORDS / 2 && stream.isPaused()) stream.resume();
          return { done: false, value: record };
        }
        if (failure !== undefined) throw failure;
        if (ended) return { done: true, value: undefined };
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}

/** Why a record could not be parsed, with the line its record starts on. */
function parseProblem(error: unknown, line: number): CsvError {
  if (error instanceof CsvError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === "CSV_QUOTE_NOT_CLOSED") {
    return new CsvError(
      `the CSV cannot be read: the quote opened in the record of line ${line} is never closed`,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CsvError(`the CSV cannot be read at line ${line}: ${message}`);
}

/**
 * Reads the header, then yields the rows as they arrive. Bytes that are not the
 * encoding, or a quote never closed, reject with `CsvError` (the header) or end the
 * rows with it.
 */
export async function readCsv(stream: NodeJS.ReadableStream, options: CsvOptions = {}): Promise<CsvInput> {
  const { head, chunks, ended } = await readHead(stream);
  const { bom, encoding } = encodingOf(head, options.encoding);
  const body = head.subarray(bom);
  if (encoding === "utf-8" && options.encoding === undefined && body.includes(0)) {
    throw new CsvError(
      `the CSV holds NUL bytes, so it is no UTF-8 text: UTF-16 without a BOM? ${ENCODING_HINT}`,
    );
  }
  const decoder = new Decoder(encoding);
  const first = decoder.decode(body, ended);
  const text = first.toString("utf8");
  const firstLine = text.slice(0, text.indexOf("\n") + 1 || text.length);
  const delimiter = options.delimiter ?? sniffDelimiter(text);
  const layout: CsvLayout = {
    bom: bom > 0,
    recordDelimiter: firstLine.endsWith("\r\n") ? "\r\n" : "\n",
    delimiter,
    sniffed: options.delimiter === undefined,
    encoding,
  };
  const read = { bytes: head.length };
  const lines = new LineCounter();
  async function* utf8(): AsyncGenerator<Buffer> {
    lines.push(first);
    if (first.length > 0) yield first;
    if (ended) return;
    for (let next = await chunks.next(); ; next = await chunks.next()) {
      const last = next.done === true;
      const chunk = next.done
        ? Buffer.alloc(0)
        : typeof next.value === "string"
          ? Buffer.from(next.value)
          : next.value;
      read.bytes += chunk.length;
      const bytes = decoder.decode(chunk, last);
      lines.push(bytes);
      if (bytes.length > 0) yield bytes;
      if (last) return;
    }
  }
  const parser = parse({ delimiter, relax_quotes: true, relax_column_count: true, info: true });
  const source = Readable.from(utf8(), { objectMode: false });
  source.on("error", (error) => parser.destroy(error));
  stream.on("error", (error) => parser.destroy(error));
  source.pipe(parser);
  const records = recordsOf<{ record: string[]; info: { bytes: number } }>(parser);
  /** Bytes of UTF-8 the records so far took (`info.bytes`). */
  let consumed = 0;
  const next = async () => {
    try {
      const result = await records.next();
      const line = lines.line;
      if (!result.done) {
        lines.advance(result.value.info.bytes - consumed);
        consumed = result.value.info.bytes;
      }
      return { result, line };
    } catch (error) {
      throw parseProblem(error, lines.line);
    }
  };
  const { result: firstRecord } = await next();
  const header = firstRecord.done ? [] : firstRecord.value.record;
  async function* rows(): AsyncGenerator<CsvRow> {
    try {
      for (let { result, line } = await next(); !result.done; { result, line } = await next()) {
        yield { ...shaped(result.value.record, header.length, delimiter), bytes: read.bytes, line };
      }
    } finally {
      parser.destroy();
      source.destroy();
    }
  }
  const close = () => {
    parser.destroy();
    source.destroy();
  };
  return { header, layout, rows: rows(), close };
}

/** A record as the header's number of cells: a blank line as empty cells; a short one padded, a long one folded into its last cell. */
function shaped(record: string[], width: number, delimiter: string): Pick<CsvRow, "cells" | "cellCount"> {
  if (record.length === width) return { cells: record };
  if (record.length === 1 && record[0] === "") return { cells: Array(width).fill("") };
  if (record.length < width) {
    return { cells: [...record, ...Array(width - record.length).fill("")], cellCount: record.length };
  }
  const kept = record.slice(0, Math.max(0, width - 1));
  return { cells: [...kept, record.slice(kept.length).join(delimiter)], cellCount: record.length };
}

function normalName(name: string): string {
  return name.toLowerCase().replace(/[\s_.-]+/g, "");
}

/** A header of one column that holds another sniffable delimiter: the file was likely split wrong. */
function delimiterHint(header: readonly string[]): string {
  if (header.length !== 1) return "";
  const other = SNIFFED_DELIMITERS.find((candidate) => header[0]?.includes(candidate));
  if (other === undefined) return "";
  const name = other === "\t" ? "tab" : other;
  return `; the header is one column "${header[0]}": is the delimiter ${JSON.stringify(other)}? Say so with --delimiter '${name}'`;
}

/**
 * The index of the address column: `--column` as a header name (exact, then without
 * case) or a 1-based number; without it, the first header named like an address.
 */
export function findColumn(header: readonly string[], column: string | undefined): number | string {
  if (header.length === 0) return "the CSV is empty: it has no header row";
  if (column !== undefined) {
    const exact = header.indexOf(column);
    if (exact >= 0) return exact;
    const loose = header.findIndex((name) => name.trim().toLowerCase() === column.trim().toLowerCase());
    if (loose >= 0) return loose;
    if (/^\d+$/.test(column) && Number(column) >= 1 && Number(column) <= header.length)
      return Number(column) - 1;
    return `no column "${column}" in the header (${header.length} columns: ${header.join(", ")})${delimiterHint(header)}`;
  }
  const names = header.map(normalName);
  for (const wanted of EMAIL_COLUMN_NAMES) {
    const index = names.indexOf(wanted);
    if (index >= 0) return index;
  }
  return `no column named like an address (${EMAIL_COLUMN_NAMES.join(", ")}); name it with --column NAME|NUMBER${delimiterHint(header)}`;
}

/** The result cells of a row of the wrong shape, which is not checked. */
function shapeCells(row: CsvRow, width: number, delimiter: string): string[] {
  const count = row.cellCount ?? width;
  const kept =
    count < width
      ? "padded with empty cells"
      : `its last ${count - width + 1} cells kept together in its last cell, joined by ${JSON.stringify(delimiter)}`;
  const cells: Partial<Record<ResultColumn, string>> = {
    mr_valid: "false",
    mr_block: "true",
    mr_reason: `wrong_cell_count: line ${row.line} has ${count} cells and the header ${width}; not checked (a missing or unquoted delimiter?); ${kept}`,
  };
  return RESULT_COLUMNS.map((column) => cells[column] ?? "");
}

/** The result cells of one row (docs/cleaning.md says what each means). */
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

/** Formats rows as CSV lines with the input's delimiter and line ending, in UTF-8 with the input's BOM. */
export function csvWriter(layout: CsvLayout, width: number) {
  const options = {
    delimiter: layout.delimiter,
    record_delimiter: layout.recordDelimiter,
    eof: true,
    // A cell with CR or LF is quoted whatever the line ending (csv-stringify quotes only
    // the record delimiter itself): a bare LF in a CRLF file would otherwise end the row.
    quoted_match: /[\r\n]/,
  } as const;
  return {
    header: (header: readonly string[]) =>
      (layout.bom ? "\ufeff" : "") + stringify([[...header, ...RESULT_COLUMNS]], options),
    row: (row: CsvRow, outcome: CheckOutcome) =>
      stringify(
        [
          [
            ...row.cells,
            ...(row.cellCount === undefined
              ? resultCells(outcome)
              : shapeCells(row, width, layout.delimiter)),
          ],
        ],
        options,
      ),
  };
}
