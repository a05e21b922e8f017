/** The `mr_` result columns a cleaned CSV adds to every row (docs/cleaning.md "CSV files"). */
import type { CheckRecord } from "../../core/record.js";
import type { CheckOutcome } from "../checking/check-many.js";
import type { CsvRow } from "./read-csv.js";

/** A record field a CSV cell can show: a scalar, or a list of strings. */
type CellField = {
  [Field in keyof CheckRecord]: CheckRecord[Field] extends string | number | boolean | string[]
    ? Field
    : never;
}[keyof CheckRecord];

/** The result columns appended to every row, in this order, each with the record field it shows. */
const RESULT_FIELDS = [
  ["mr_valid", "valid"],
  ["mr_block", "block"],
  ["mr_risk", "risk"],
  ["mr_reason", "reason"],
  ["mr_domain", "domain"],
  ["mr_disposable", "is_disposable"],
  ["mr_role", "is_role_based_email"],
  ["mr_free", "is_public_free"],
  ["mr_typo", "possible_typo"],
  ["mr_mx_host", "mx_host"],
  ["mr_provider", "email_provider"],
] as const satisfies readonly (readonly [string, CellField])[];

type ResultColumn = (typeof RESULT_FIELDS)[number][0];

/** The result columns' names, in their order. */
export const RESULT_COLUMNS: readonly ResultColumn[] = RESULT_FIELDS.map(([column]) => column);

/** The cells of a row that was not checked: invalid and blocked, with why. */
function refused(reason: string): string[] {
  const cells: Partial<Record<ResultColumn, string>> = {
    mr_valid: "false",
    mr_block: "true",
    mr_reason: reason,
  };
  return RESULT_COLUMNS.map((column) => cells[column] ?? "");
}

/** A field's value as a cell: a list of strings space-separated. */
function cellOf(value: CheckRecord[CellField]): string {
  return Array.isArray(value) ? value.join(" ") : String(value);
}

/** The result cells of one checked row. */
export function resultCells(outcome: CheckOutcome): string[] {
  if ("problem" in outcome) return refused(`${outcome.problem.code}: ${outcome.problem.detail}`);
  const { record } = outcome;
  return RESULT_FIELDS.map(([, field]) => cellOf(record[field]));
}

/** The result cells of a row of the wrong shape, which is not checked. */
export function shapeCells(row: CsvRow, width: number, delimiter: string): string[] {
  const count = row.cellCount ?? width;
  const kept =
    count < width
      ? "padded with empty cells"
      : `its last ${count - width + 1} cells kept together in its last cell, joined by ${JSON.stringify(delimiter)}`;
  return refused(
    `wrong_cell_count: line ${row.line} has ${count} cells and the header ${width}; not checked (a missing or unquoted delimiter?); ${kept}`,
  );
}
