/**
 * Writes a cleaned CSV with csv-stringify (docs/cleaning.md "CSV files"): every original
 * cell as it was read, plus the result columns, with the input's delimiter and line
 * ending, in UTF-8 with the input's BOM. A cell is quoted when it holds the delimiter, a
 * quote, CR or LF, whatever the line ending, so every row reads back as one record.
 */
import { stringify } from "csv-stringify/sync";
import type { CheckOutcome } from "../check-many.js";
import type { CsvLayout, CsvRow } from "./read-csv.js";
import { RESULT_COLUMNS, resultCells, shapeCells } from "./result-columns.js";

/** Formats the header and the rows as CSV lines; `width` is the header's number of cells. */
export function csvWriter(layout: CsvLayout, width: number) {
  const options = {
    delimiter: layout.delimiter,
    record_delimiter: layout.recordDelimiter,
    eof: true,
    // csv-stringify quotes only the record delimiter itself: a bare LF in a CRLF file would otherwise end the row.
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
