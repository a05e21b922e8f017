/**
 * Reads a CSV with a header row as it streams in (docs/cleaning.md "CSV files"): RFC 4180
 * through csv-parse (quoted fields with delimiters, quotes and line breaks inside, CRLF
 * or LF), after the first 64 KiB decide the encoding and the delimiter. Bounded
 * (docs/cleaning.md "Limits"): a header or row of more than `maxColumns` cells, or a line
 * or record of more than `maxRecordBytes`, ends the reading with `CsvTooLarge` at that
 * line, the long line refused as its bytes pass, before the parser holds it. A row with
 * fewer cells than the header keeps its own (it is never padded in memory; the writer
 * pads it); one with more has its extra cells kept in its last cell; both say so.
 * Memory stays bounded: the parser pauses while HELD_RECORDS rows wait to be taken.
 * Rows are also taken a chunk at a time (`chunks`: the rows parsed so far, at most a
 * batch), which costs no promise per row: a list job's upload reads a million rows so.
 */
import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { CsvError, type CsvLimits, CsvTooLarge, DEFAULT_CSV_LIMITS } from "./csv-error.js";
import { type CsvEncoding, Decoder, encodingOf } from "./decode.js";
import { LineMeter } from "./line-meter.js";
import { sniffDelimiter } from "./sniff-delimiter.js";

export interface CsvRow {
  /** The cells as read: as many as the header has, or fewer for a short row (see `cellCount`); none for a blank line. */
  cells: string[];
  /** Bytes of the input read when this row was parsed (progress; ahead by at most a chunk). */
  bytes: number;
  /** The line of the file the row starts on (1: the header). */
  line: number;
  /** The cells the row had when that is not the header's count (it is short, or was folded); else undefined. */
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

export interface CsvInput {
  header: string[];
  layout: CsvLayout;
  /** The rows one at a time; take these or `chunks()`, not both. */
  rows: AsyncGenerator<CsvRow>;
  /** The rows as they are parsed, at most `max` at a time, in order. */
  chunks(max: number): AsyncGenerator<CsvRow[]>;
  /** Stops reading (the rows will not be taken). */
  close(): void;
}

export interface CsvOptions {
  /** Undefined: sniffed. */
  delimiter?: string;
  /** Undefined: UTF-8, unless a BOM says UTF-16. */
  encoding?: CsvEncoding;
  /** Undefined: DEFAULT_CSV_LIMITS. */
  limits?: CsvLimits;
}

/** Bytes read before the layout is decided. */
const HEAD_BYTES = 64 * 1024;

/** Line feeds in a record's cells (a quoted cell may hold line breaks): with its own line ending, the lines it takes. */
function lineFeedsIn(record: readonly string[]): number {
  let count = 0;
  for (const cell of record) for (let i = cell.indexOf("\n"); i >= 0; i = cell.indexOf("\n", i + 1)) count++;
  return count;
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

/**
 * Bytes handed to the parser at a time: it parses a piece whole, even paused, so a
 * smaller piece holds fewer rows parsed ahead of their reading (a row that waits long
 * outlives the young generation and costs a major GC).
 */
const PIECE_BYTES = 16 * 1024;

/** `bytes` in pieces of about PIECE_BYTES, never cutting a UTF-8 sequence. */
function* pieces(bytes: Buffer): Generator<Buffer> {
  let start = 0;
  while (bytes.length - start > PIECE_BYTES) {
    let end = start + PIECE_BYTES;
    while (end > start + 1 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
    yield bytes.subarray(start, end);
    start = end;
  }
  if (start < bytes.length) yield bytes.subarray(start);
}

/** Records held before the parser is paused (backpressure), and the count at which it resumes. */
const HELD_RECORDS = 256;

/**
 * A stream's records, pulled as they come: every record it emitted comes before its
 * error (an async iterator of the stream would drop the records still buffered).
 */
function recordsOf<T>(stream: NodeJS.ReadableStream & { isPaused(): boolean }): {
  /** Up to `max` records held now, waiting for one when none is; empty at the end. */
  take(max: number): Promise<T[]>;
} {
  let held: T[] = [];
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
    async take(max) {
      for (;;) {
        if (held.length > 0) {
          let taken: T[];
          if (held.length <= max) {
            taken = held;
            held = [];
          } else taken = held.splice(0, max);
          if (held.length < HELD_RECORDS / 2 && stream.isPaused()) stream.resume();
          return taken;
        }
        if (failure !== undefined) throw failure;
        if (ended) return [];
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}

/** Why a record could not be parsed, with the line its record starts on. */
function parseProblem(error: unknown, line: number, limits: CsvLimits): CsvError {
  if (error instanceof CsvError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === "CSV_MAX_RECORD_SIZE") return new CsvTooLarge("record_bytes", line, limits.maxRecordBytes);
  if (code === "CSV_QUOTE_NOT_CLOSED") {
    return new CsvError(
      `the CSV cannot be read: the quote opened in the record of line ${line} is never closed`,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CsvError(`the CSV cannot be read at line ${line}: ${message}`);
}

/** A record as a row: a blank line as no cells, a short one as it is, a long one folded into its last cell. */
function shaped(record: string[], width: number, delimiter: string, bytes: number, line: number): CsvRow {
  if (record.length === width) return { cells: record, bytes, line };
  if (record.length === 1 && record[0] === "") return { cells: [], bytes, line };
  if (record.length < width) return { cells: record, cellCount: record.length, bytes, line };
  const kept = record.slice(0, Math.max(0, width - 1));
  return {
    cells: [...kept, record.slice(kept.length).join(delimiter)],
    cellCount: record.length,
    bytes,
    line,
  };
}

/**
 * Reads the header, then yields the rows as they arrive. Bytes that are not the
 * encoding, or a quote never closed, reject with `CsvError` (the header) or end the
 * rows with it.
 */
export async function readCsv(stream: NodeJS.ReadableStream, options: CsvOptions = {}): Promise<CsvInput> {
  const limits = options.limits ?? DEFAULT_CSV_LIMITS;
  const meter = new LineMeter(limits.maxRecordBytes);
  const { head, chunks, ended } = await readHead(stream);
  const { bom, encoding } = encodingOf(head, options.encoding);
  if (encoding === "utf-8" && options.encoding === undefined && head.includes(0)) {
    throw new CsvError("the CSV holds NUL bytes, so it is no UTF-8 text: UTF-16 without a BOM?", [
      { kind: "encoding" },
    ]);
  }
  // A UTF-16 BOM is taken by its decoder, a UTF-8 one by the parser (`bom`).
  const decoder = new Decoder(encoding);
  const first = decoder.decode(head, ended);
  const text = first.toString("utf8");
  const firstLine = text.slice(0, text.indexOf("\n") + 1 || text.length);
  const delimiter = options.delimiter ?? sniffDelimiter(text);
  const layout: CsvLayout = {
    bom,
    recordDelimiter: firstLine.endsWith("\r\n") ? "\r\n" : "\n",
    delimiter,
    sniffed: options.delimiter === undefined,
    encoding,
  };
  const read = { bytes: head.length };
  async function* utf8(): AsyncGenerator<Buffer> {
    meter.feed(first);
    yield* pieces(first);
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
      meter.feed(bytes);
      yield* pieces(bytes);
      if (last) return;
    }
  }
  // No `info`: its object per record costs more than the record, and outlives young collections.
  const parser = parse({
    delimiter,
    bom: true,
    relax_quotes: true,
    relax_column_count: true,
    max_record_size: limits.maxRecordBytes,
  });
  const source = Readable.from(utf8(), { objectMode: false });
  source.on("error", (error) => parser.destroy(error));
  stream.on("error", (error) => parser.destroy(error));
  source.pipe(parser);
  const records = recordsOf<string[]>(parser);
  /** The line the next record starts on (1-based; a line is counted at each line feed, as the decoder counts them). */
  let nextLine = 1;
  /** Up to `max` records; a parse error as a CsvError at the line its record starts on. */
  const take = (max: number) =>
    records.take(max).catch((error: unknown) => {
      throw parseProblem(error, nextLine, limits);
    });
  /** The line a record starts on; moves the count past it and its line ending. */
  const lineOf = (record: readonly string[]) => {
    const line = nextLine;
    nextLine += lineFeedsIn(record) + 1;
    return line;
  };
  const close = () => {
    parser.destroy();
    source.destroy();
  };
  const [headerRecord] = await take(1).catch((error: unknown) => {
    close();
    throw error;
  });
  if (headerRecord) lineOf(headerRecord);
  const header = headerRecord ?? [];
  if (header.length > limits.maxColumns) {
    close();
    throw new CsvTooLarge("columns", 1, limits.maxColumns);
  }
  async function* rowChunks(max: number): AsyncGenerator<CsvRow[]> {
    try {
      for (let taken = await take(max); taken.length > 0; taken = await take(max)) {
        const chunk: CsvRow[] = [];
        for (const record of taken) {
          const line = lineOf(record);
          if (record.length > limits.maxColumns) throw new CsvTooLarge("columns", line, limits.maxColumns);
          chunk.push(shaped(record, header.length, delimiter, read.bytes, line));
        }
        yield chunk;
      }
    } finally {
      close();
    }
  }
  async function* rows(): AsyncGenerator<CsvRow> {
    for await (const chunk of rowChunks(HELD_RECORDS)) yield* chunk;
  }
  return { header, layout, rows: rows(), chunks: rowChunks, close };
}
