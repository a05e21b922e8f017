/**
 * Cells a spreadsheet would run get a `'` in front (docs/cleaning.md "Formula cells"):
 * `=`, `+`, `-`, `@`, tab or CR first, unless a plain number; `raw` keeps them as read.
 */
import { describe, expect, it } from "vitest";
import { inertCell } from "../../../src/service/csv/formula-cells.js";
import { csvWriter } from "../../../src/service/csv/write-csv.js";

describe("inertCell", () => {
  it.each([
    ["=1+2", "'=1+2"],
    ["+A1", "'+A1"],
    ["-A1+1", "'-A1+1"],
    ["@x", "'@x"],
    ["=1+2@x.org", "'=1+2@x.org"],
    ["\tx", "'\tx"],
    ["\rx", "'\rx"],
    ["-5", "-5"],
    ["+1.5", "+1.5"],
    ["42", "42"],
    ["-", "'-"],
    ["-1e5", "'-1e5"],
    ["a=b", "a=b"],
    ["user@example.com", "user@example.com"],
    ["", ""],
  ])("%j → %j", (cell, written) => {
    expect(inertCell(cell)).toBe(written);
  });
});

describe("csvWriter", () => {
  const layout = {
    bom: false,
    recordDelimiter: "\n" as const,
    delimiter: ",",
    sniffed: false,
    encoding: "utf-8",
  };
  const outcome = { input: "", problem: { code: "invalid_email", detail: "x" } } as never;

  it("prefixes formula cells of the header, the row and the result columns; pads a short row on writing", () => {
    const write = csvWriter(layout, 3);
    expect(write.header(["=h", "email", "n"]).startsWith("'=h,email,n,mr_valid")).toBe(true);
    const line = write.row({ cells: ["=1+2", "-5"], cellCount: 2, line: 2, bytes: 0 }, outcome);
    expect(line.startsWith("'=1+2,-5,,false,true")).toBe(true);
  });

  it("keeps every cell as read when raw", () => {
    const write = csvWriter(layout, 2, { raw: true });
    const line = write.row({ cells: ["=1+2", "@x"], line: 2, bytes: 0 }, outcome);
    expect(line.startsWith("=1+2,@x,false,true")).toBe(true);
  });
});
