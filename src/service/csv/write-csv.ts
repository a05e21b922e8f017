/**
 * Writes a cleaned CSV with csv-stringify (docs/cleaning.md "CSV files"): every original
 * cell as it was read (a short row padded with empty cells here, never in memory), plus
 * the result columns, with the input's delimiter and line ending, in UTF-8 with the
 * input's BOM. A cell is quoted when it holds the delimiter, a quote, CR or LF, whatever
 * the line ending, so every row reads back as one record. Unless `raw`, a cell that
 * would start a formula gets a `'` in front (formula-cells.ts).
 */
import { stringify } from "csv-stringify/sync";
import type { CheckOutcome } from "../checking/check-many.js";
import { inertCell } from "./formula-cells.js";
import type { CsvLayout, CsvRow } from "./read-csv.js";
import { RESULT_COLUMNS, resultCells, shapeCells } from "./result-columns.js";

export interface WriteOptions {
  /** Keep cells that would start a formula as they are (`raw=true`, `--raw`). */
  raw?: boolean;
}

/** Formats the header and the rows as CSV lines; `width` is the header's number of cells. */
export function csvWriter(layout: CsvLayout, width: number, { raw = false }: WriteOptions = {}) {
  const options = {
    delimiter: layout.delimiter,
    record_delimiter: layout.recordDelimiter,
    eof: true,
    // csv-stringify quotes only the record delimiter itself: a bare LF in a CRLF file would otherwise end the row.
    quoted_match: /[\r\n]/,
  } as const;
  const line = (cells: string[]) => stringify([raw ? cells : cells.map(inertCell)], options);
  return {
    header: (header: readonly string[]) =>
      (layout.bom ? "\ufeff" : "") + line([...header, ...RESULT_COLUMNS]),
    row: (row: CsvRow, outcome: CheckOutcome) => {
      const cells =
        row.cells.length < width
          ? [...row.cells, ...Array(width - row.cells.length).fill("")]
          : [...row.cells];
      cells.push(
        ...(row.cellCount === undefined ? resultCells(outcome) : shapeCells(row, width, layout.delimiter)),
      );
      return line(cells);
    },
  };
}
