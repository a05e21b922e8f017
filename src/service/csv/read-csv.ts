/**
 * Reads a CSV with a header row as it streams in (docs/cleaning.md "CSV files"): RFC 4180
 * through csv-parse (quoted fields with delimiters, quotes and line breaks inside, CRLF
 * or LF), after the first 64 KiB decide the encoding and the delimiter. Every row comes
 * with the header's number of cells: a row with fewer or more is padded with empty cells,
 * or has its extra cells kept in its last cell, joined by the delimiter, and says so.
 * Memory stays bounded: the parser pauses while HELD_RECORDS rows wait to be taken.
 */
import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { CsvError } from "./csv-error.js";
import { type CsvEncoding, Decoder, ENCODING_HINT, encodingOf, newlines } from "./decode.js";
import { sniffDelimiter } from "./sniff-delimiter.js";

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

export interface CsvInput {
  header: string[];
  layout: CsvLayout;
  rows: AsyncGenerator<CsvRow>;
  /** Stops reading (the rows will not be taken). */
  close(): void;
}

export interface CsvOptions {
  /** Undefined: sniffed. */
  delimiter?: string;
  /** Undefined: UTF-8, unless a BOM says UTF-16. */
  encoding?: CsvEncoding;
}

/** Bytes read before the layout is decided. */
const HEAD_BYTES = 64 * 1024;

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

/**
 * Reads the header, then yields the rows as they arrive. Bytes that are not the
 * encoding, or a quote never closed, reject with `CsvError` (the header) or end the
 * rows with it.
 */
export async function readCsv(stream: NodeJS.ReadableStream, options: CsvOptions = {}): Promise<CsvInput> {
  const { head, chunks, ended } = await readHead(stream);
  const { bom, encoding } = encodingOf(head, options.encoding);
  if (encoding === "utf-8" && options.encoding === undefined && head.includes(0)) {
    throw new CsvError(
      `the CSV holds NUL bytes, so it is no UTF-8 text: UTF-16 without a BOM? ${ENCODING_HINT}`,
    );
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
  const parser = parse({ delimiter, bom: true, relax_quotes: true, relax_column_count: true, info: true });
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
  const close = () => {
    parser.destroy();
    source.destroy();
  };
  async function* rows(): AsyncGenerator<CsvRow> {
    try {
      for (let { result, line } = await next(); !result.done; { result, line } = await next()) {
        yield { ...shaped(result.value.record, header.length, delimiter), bytes: read.bytes, line };
      }
    } finally {
      close();
    }
  }
  return { header, layout, rows: rows(), close };
}
