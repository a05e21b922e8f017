/** The address column (docs/cleaning.md "CSV files"): named exactly or without case, numbered from 1, or found by its name. */

import { describe, expect, it } from "vitest";
import { CsvError } from "../../../src/service/csv/csv-error.js";
import { findColumn } from "../../../src/service/csv/find-column.js";

describe("findColumn", () => {
  const header = ["id", "Name", "E-Mail", "domain"];

  it("takes a named column exactly, then without case, then a number from 1", () => {
    expect(findColumn(header, "Name")).toBe(1);
    expect(findColumn(header, " name ")).toBe(1);
    expect(findColumn(header, "4")).toBe(3);
  });

  it("finds the first header named like an address, in the order of the known names", () => {
    expect(findColumn(header, undefined)).toBe(2);
    expect(findColumn(["Contact_Email", "mail"], undefined)).toBe(1);
  });

  it("says why there is none in neutral words, with advice each surface words, hinting at another delimiter", () => {
    const text = (found: number | CsvError) => (found instanceof CsvError ? found.message : found);
    expect(text(findColumn([], undefined))).toBe("the CSV is empty: it has no header row");
    expect(text(findColumn(header, "5"))).toBe(
      'no column "5" in the header (4 columns: id, Name, E-Mail, domain)',
    );
    const oneColumn = findColumn(["id;email"], undefined) as CsvError;
    expect(oneColumn.message).toMatch(
      /^no column named like an address .*; the header is one column "id;email": is the delimiter ";"\?$/,
    );
    expect(oneColumn.message).not.toMatch(/--|\?column=/);
    expect(oneColumn.advice).toEqual([{ kind: "column" }, { kind: "delimiter", delimiter: ";" }]);
  });
});
