/**
 * Bounded reading (docs/cleaning.md "Limits"): a header or row wider than
 * CSV_MAX_COLUMNS, or a line or record longer than CSV_MAX_RECORD_BYTES, refuses the file
 * whole with `CsvTooLarge` naming its line; a one-line file is refused after the bound's
 * bytes, not after the whole line; short rows keep their own cells.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { CsvError, CsvTooLarge } from "../../../src/service/csv/csv-error.js";
import { LineMeter } from "../../../src/service/csv/line-meter.js";
import { readCsv } from "../../../src/service/csv/read-csv.js";

const LIMITS = { maxColumns: 5, maxRecordBytes: 100 };

async function readAll(text: string | Readable) {
  const stream = typeof text === "string" ? Readable.from([Buffer.from(text)]) : text;
  const csv = await readCsv(stream, { limits: LIMITS });
  const rows = [];
  for await (const row of csv.rows) rows.push(row);
  return rows;
}

async function refusal(text: string | Readable): Promise<CsvTooLarge> {
  const error = await readAll(text).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CsvTooLarge);
  return error as CsvTooLarge;
}

describe("readCsv within its bounds", () => {
  it("refuses a header wider than maxColumns at line 1", async () => {
    const error = await refusal("a,b,c,d,e,f\n1,2,3,4,5,6\n");
    expect(error).toMatchObject({ bound: "columns", line: 1, limit: 5 });
    expect(error.message).toBe("line 1 has more than 5 columns (CSV_MAX_COLUMNS); the file is refused");
  });

  it("refuses a row wider than maxColumns at its line, the rows before it read", async () => {
    const error = await refusal("email,name\na@b.io,x\nc@d.io,1,2,3,4,5\n");
    expect(error).toMatchObject({ bound: "columns", line: 3 });
  });

  it("refuses a line longer than maxRecordBytes at its line", async () => {
    const error = await refusal(`email\na@b.io\n${"x".repeat(150)}\n`);
    expect(error).toMatchObject({ bound: "record_bytes", line: 3, limit: 100 });
    expect(error.message).toMatch(/^line 3 is longer than 100 bytes \(CSV_MAX_RECORD_BYTES\)/);
  });

  it("refuses a record longer than maxRecordBytes across lines (a quoted cell with line breaks)", async () => {
    const cell = Array.from({ length: 10 }, () => "y".repeat(40)).join("\n");
    const error = await refusal(`email,note\na@b.io,"${cell}"\n`);
    expect(error.bound).toBe("record_bytes");
    expect(error.line).toBe(2);
  });

  it("refuses a one-line file of 50 MB after reading little more than its bound", async () => {
    let served = 0;
    const piece = Buffer.alloc(64 * 1024, 0x61);
    const endless = new Readable({
      read() {
        served += piece.length;
        this.push(served > 50_000_000 ? null : piece);
      },
    });
    const error = await refusal(endless);
    expect(error.line).toBe(1);
    expect(served).toBeLessThan(1_000_000);
  });

  it("keeps a short row's own cells, and reads rows within the bounds as they are", async () => {
    const rows = await readAll("email,name,city\na@b.io\nc@d.io,Ada,London\n");
    expect(rows.map(({ cells, cellCount }) => ({ cells, cellCount }))).toEqual([
      { cells: ["a@b.io"], cellCount: 1 },
      { cells: ["c@d.io", "Ada", "London"], cellCount: undefined },
    ]);
  });

  it("is a CsvError, so every surface that refuses unreadable files refuses it", async () => {
    expect(await refusal("a,b,c,d,e,f\n")).toBeInstanceOf(CsvError);
  });
});

describe("LineMeter", () => {
  it("counts lines across chunks and refuses the first over the bound, CRLF's CR not counted", () => {
    const meter = new LineMeter(4);
    meter.feed(Buffer.from("abcd\r\nab"));
    meter.feed(Buffer.from("cd\nx"));
    expect(meter.lineFeeds).toBe(2);
    expect(meter.lines).toBe(3);
    expect(() => meter.feed(Buffer.from("yzzzz\n"))).toThrow(/line 3 is longer than 4 bytes/);
  });
});
