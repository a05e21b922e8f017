/** The address column of a CSV's header (docs/cleaning.md "CSV files"): named, numbered or found by its name. */
import { type CsvAdvice, CsvError } from "./csv-error.js";
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
function delimiterHint(header: readonly string[]): { text: string; advice: CsvAdvice[] } {
  if (header.length !== 1) return { text: "", advice: [] };
  const other = SNIFFED_DELIMITERS.find((candidate) => header[0]?.includes(candidate));
  if (other === undefined) return { text: "", advice: [] };
  return {
    text: `; the header is one column "${header[0]}": is the delimiter ${JSON.stringify(other)}?`,
    advice: [{ kind: "delimiter", delimiter: other }],
  };
}

/**
 * The index of the address column: `column` as a header name (exact, then without case)
 * or a 1-based number; without it, the first header named like an address. A CsvError
 * says why there is none (neutral words, with advice each surface words).
 */
export function findColumn(header: readonly string[], column: string | undefined): number | CsvError {
  if (header.length === 0) return new CsvError("the CSV is empty: it has no header row");
  const hint = delimiterHint(header);
  if (column !== undefined) {
    const exact = header.indexOf(column);
    if (exact >= 0) return exact;
    const loose = header.findIndex((name) => name.trim().toLowerCase() === column.trim().toLowerCase());
    if (loose >= 0) return loose;
    if (/^\d+$/.test(column) && Number(column) >= 1 && Number(column) <= header.length)
      return Number(column) - 1;
    return new CsvError(
      `no column "${column}" in the header (${header.length} columns: ${header.join(", ")})${hint.text}`,
      hint.advice,
    );
  }
  const names = header.map(normalName);
  for (const wanted of EMAIL_COLUMN_NAMES) {
    const index = names.indexOf(wanted);
    if (index >= 0) return index;
  }
  return new CsvError(`no column named like an address (${EMAIL_COLUMN_NAMES.join(", ")})${hint.text}`, [
    { kind: "column" },
    ...hint.advice,
  ]);
}
