/**
 * A CSV that cannot be read (bytes that are not the encoding, a quote never closed), or
 * one over a bound: the run stops. The message is neutral (no command-line flag, no
 * HTTP parameter); `advice` says what the caller could change, each surface in its words.
 */
export class CsvError extends Error {
  override name = "CsvError";
  constructor(
    message: string,
    readonly advice: readonly CsvAdvice[] = [],
  ) {
    super(message);
  }
}

/** The error's message with its advice, each piece worded by the surface (`words`). */
export function csvErrorText(error: CsvError, words: (advice: CsvAdvice) => string): string {
  return [error.message, ...error.advice.map(words)].join("; ");
}

/** What would make a refused CSV readable: naming its delimiter, its encoding or its address column. */
export type CsvAdvice = { kind: "delimiter"; delimiter: string } | { kind: "encoding" } | { kind: "column" };

/** Which bound a CSV passed: its columns (CSV_MAX_COLUMNS) or a record's bytes (CSV_MAX_RECORD_BYTES). */
export type CsvBound = "columns" | "record_bytes";

/** A CSV over a bound, refused whole at the line that passed it (413 on the API, exit 2 on the CLI). */
export class CsvTooLarge extends CsvError {
  override name = "CsvTooLarge";
  constructor(
    readonly bound: CsvBound,
    readonly line: number,
    readonly limit: number,
  ) {
    super(
      bound === "columns"
        ? `line ${line} has more than ${limit} columns (CSV_MAX_COLUMNS); the file is refused`
        : `line ${line} is longer than ${limit} bytes (CSV_MAX_RECORD_BYTES); the file is refused`,
    );
  }
}

/** The bounds every CSV is read within. */
export interface CsvLimits {
  /** Most cells of the header or of a row. */
  maxColumns: number;
  /** Most bytes of one record (and of one line). */
  maxRecordBytes: number;
}

/** The bounds' defaults (CSV_MAX_COLUMNS, CSV_MAX_RECORD_BYTES). */
export const DEFAULT_CSV_LIMITS: CsvLimits = { maxColumns: 1000, maxRecordBytes: 64 * 1024 };
