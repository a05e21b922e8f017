/** Plain-text tables for terminal output: columns padded to their widest cell. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.max(...rows.map((row) => (row[i] ?? "").length)),
  );
  return rows.map((row) => formatRow(row, widths)).join("\n");
}

/** One row, each cell padded to its column's width and two spaces apart (a streamed table knows its widths up front). */
export function formatRow(row: readonly string[], widths: readonly number[]): string {
  return row
    .map((cell, i) => cell.padEnd(widths[i] ?? 0))
    .join("  ")
    .trimEnd();
}
