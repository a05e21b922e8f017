/** The address column of a CSV's header (docs/cleaning.md "CSV files"): named, numbered or found by its name. */
import { SNIFFED_DELIMITERS } from "./sniff-delimiter.js";

/** Header names taken for the address column when none is named, in this order (compared without case, spaces, `-`, `_`, `.`). */
const EMAIL_COLUMN_NAMES = [
  "email",
  "emailaddress",
  "mail",
  "mailaddress",
  "useremail",
  "contactemail",
  "address",
  "domain",
] as const;

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
 * The index of the address column: `column` as a header name (exact, then without case)
 * or a 1-based number; without it, the first header named like an address. A string
 * says why there is none.
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
