/**
 * The CSV decoder (docs/cleaning.md "CSV files"): a BOM decides the encoding; UTF-8 is
 * passed through whole, a sequence cut between chunks joined, a byte UTF-8 does not allow
 * refused with its line; Windows-1252 reads as browsers read it (its five undefined bytes
 * keep their C1 control, never U+FFFD); UTF-16 that is not UTF-16 is refused.
 */
import { describe, expect, it } from "vitest";
import { CsvError } from "../../../src/service/csv/csv-error.js";
import { Decoder, encodingOf } from "../../../src/service/csv/decode.js";

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : Buffer.from(part))));

describe("encodingOf", () => {
  it("lets a BOM decide, then the given encoding, then UTF-8", () => {
    expect(encodingOf(bytes([0xef, 0xbb, 0xbf], "a"), "latin1")).toEqual({ bom: true, encoding: "utf-8" });
    expect(encodingOf(bytes([0xff, 0xfe, 0x61, 0]), undefined)).toEqual({ bom: true, encoding: "utf-16le" });
    expect(encodingOf(bytes([0xfe, 0xff, 0, 0x61]), undefined)).toEqual({ bom: true, encoding: "utf-16be" });
    expect(encodingOf(bytes("a,b"), "cp1252")).toEqual({ bom: false, encoding: "windows-1252" });
    expect(encodingOf(bytes("a,b"), undefined)).toEqual({ bom: false, encoding: "utf-8" });
  });
});

describe("Decoder", () => {
  it("joins a UTF-8 sequence cut between two chunks", () => {
    const decoder = new Decoder("utf-8");
    const euro = Buffer.from("€");
    const first = decoder.decode(bytes("a,", [...euro.subarray(0, 2)]), false);
    const second = decoder.decode(bytes([...euro.subarray(2)], "\n"), true);
    expect(Buffer.concat([first, second]).toString("utf8")).toBe("a,€\n");
  });

  it("refuses a byte UTF-8 does not allow, with the line it is on, counted across chunks", () => {
    const decoder = new Decoder("utf-8");
    decoder.decode(bytes("name,email\n"), false);
    expect(() => decoder.decode(bytes("a,b\nM", [0xfc], "ller,c\n"), true)).toThrow(
      new CsvError("the CSV is not valid UTF-8: line 3 has the byte 0xFC, which UTF-8 does not allow there", [
        { kind: "encoding" },
      ]),
    );
  });

  it("reads Windows-1252 as browsers do: 0x80 is €, 0xFC is ü, an undefined byte keeps its C1 control", () => {
    const text = new Decoder("windows-1252").decode(Buffer.from([0x80, 0xfc, 0x81, 0x8d, 0x9d, 0x41]), true);
    expect(text.toString("utf8")).toBe("€ü\u0081\u008d\u009dA");
  });

  it("reads UTF-16 across chunks and refuses a lone surrogate with the line before it", () => {
    const decoder = new Decoder("utf-16le");
    const encoded = Buffer.from("a,b\nü,c\n", "utf16le");
    const first = decoder.decode(encoded.subarray(0, 5), false);
    const second = decoder.decode(encoded.subarray(5), false);
    expect(Buffer.concat([first, second]).toString("utf8")).toBe("a,b\nü,c\n");
    expect(() => decoder.decode(Buffer.from([0x00, 0xd8, 0x41, 0x00]), true)).toThrow(
      "the CSV is not valid utf-16le after line 3",
    );
  });
});
