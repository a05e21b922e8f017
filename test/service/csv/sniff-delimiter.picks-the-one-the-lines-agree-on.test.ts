/** Delimiter sniffing (docs/cleaning.md "CSV files"): the delimiter the header and most lines hold as often, quotes ignored. */
import { describe, expect, it } from "vitest";
import { sniffDelimiter } from "../../../src/service/csv/sniff-delimiter.js";

describe("sniffDelimiter", () => {
  it.each([
    ["a,b,c\n1,2,3\n", ","],
    ["a;b;c\n1;2;3\n", ";"],
    ["a\tb\n1\t2\n", "\t"],
    ["a|b\n1|2\n", "|"],
  ])("finds the delimiter of %j", (text, delimiter) => {
    expect(sniffDelimiter(text)).toBe(delimiter);
  });

  it("prefers the delimiter the following lines agree on over the one the header holds most", () => {
    expect(sniffDelimiter("name;email,with,commas\nAna;a@b.c\nBo;b@c.d\n")).toBe(";");
  });

  it("ignores delimiters inside quotes, and says , for a file of one column", () => {
    expect(sniffDelimiter('"a;b",c\n"1;2",3\n')).toBe(",");
    expect(sniffDelimiter("email\na@b.c\n")).toBe(",");
  });
});
