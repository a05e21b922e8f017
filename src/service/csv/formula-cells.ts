/**
 * Cells a spreadsheet would run (docs/cleaning.md "Formula cells"): one that starts with
 * `=`, `+`, `-`, `@`, a tab or a carriage return is written with a `'` in front, so it is
 * shown as text, unless it is a plain number (an optional sign, digits, an optional
 * decimal part). The raw file (`raw=true`, `--raw`) keeps every cell as uploaded.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?\d+(?:\.\d+)?$/;

/** Whether a spreadsheet could take the cell for a formula. */
export function startsFormula(cell: string): boolean {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell);
}

/** The cell as a spreadsheet shows it as text: `'` in front of one that would start a formula. */
export function inertCell(cell: string): string {
  return startsFormula(cell) ? `'${cell}` : cell;
}
