/**
 * Plain-text tables for terminal output, two spaces between columns. A table known in
 * full fits every column to its widest cell; a streamed one (rows written as they come)
 * has fixed widths, and cuts a cell that is too wide with "…" so the cells after it stay
 * in their columns (a row's last filled cell is never cut). Cells are terminal text
 * (terminal-text.ts), escaped before they are measured.
 */
import { terminalText } from "./terminal-text.js";

/** A count for a person: whole, with thousands separated by commas (1,234). */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** Columns a cell takes: its code points (a terminal shows most as one column each). */
function widthOf(cell: string): number {
  let width = 0;
  for (const _ of cell) width++;
  return width;
}

function padded(cell: string, width: number): string {
  return cell + " ".repeat(Math.max(0, width - widthOf(cell)));
}

/** Every column as wide as its widest cell (and at least `minWidths`). */
export function formatTable(
  given: readonly (readonly string[])[],
  minWidths: readonly number[] = [],
): string {
  const rows = given.map((row) => row.map(terminalText));
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.max(minWidths[i] ?? 0, ...rows.map((row) => widthOf(row[i] ?? ""))),
  );
  return rows.map((row) => formatRow(row, widths)).join("\n");
}

/** One row, each cell padded to its column's width (a wider cell pushes the rest right). */
export function formatRow(row: readonly string[], widths: readonly number[]): string {
  return row
    .map((cell, i) => padded(cell, widths[i] ?? 0))
    .join("  ")
    .trimEnd();
}

/** One row of a streamed table: a cell wider than its column is cut with "…" when a filled cell follows it. */
export function formatStreamedRow(row: readonly string[], widths: readonly number[]): string {
  const lastFilled = row.findLastIndex((cell) => cell !== "");
  const fitted = row.map(terminalText).map((cell, i) => {
    const width = widths[i] ?? 0;
    if (i >= lastFilled || width === 0 || widthOf(cell) <= width) return cell;
    return `${[...cell].slice(0, width - 1).join("")}…`;
  });
  return formatRow(fitted, widths);
}
