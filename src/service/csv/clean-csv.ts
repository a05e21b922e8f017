/**
 * Cleans a CSV as it streams (docs/cleaning.md "CSV files"): its rows checked in input
 * order with bounded concurrency and memory (`checkMany`), each with its output line.
 * A row of the wrong shape is not checked: "" is a problem without a look-up, and the
 * writer says why.
 */
import { type Checked, type CheckManyOptions, checkMany } from "../checking/check-many.js";
import type { CsvInput, CsvRow } from "./read-csv.js";
import { csvWriter } from "./write-csv.js";

interface CleanedRow extends Checked<CsvRow> {
  /** The row as a CSV line: its cells, then the result columns. */
  line: string;
}

/** The output's header line, and the rows checked on the address column `column` (an index of the header). */
export function cleanCsv(
  csv: CsvInput,
  column: number,
  options: CheckManyOptions & { raw?: boolean },
): { header: string; rows: AsyncGenerator<CleanedRow> } {
  const write = csvWriter(csv.layout, csv.header.length, { raw: options.raw });
  const checked = checkMany(csv.rows, {
    ...options,
    inputOf: (row) => (row.cellCount === undefined ? (row.cells[column] ?? "") : ""),
  });
  async function* rows(): AsyncGenerator<CleanedRow> {
    for await (const entry of checked) yield { ...entry, line: write.row(entry.item, entry.outcome) };
  }
  return { header: write.header(csv.header), rows: rows() };
}
