/**
 * Reading and cleaning a CSV as it streams (docs/cleaning.md "CSV files"): each row knows
 * the line it starts on (line breaks inside quoted cells counted), has the header's
 * number of cells (a short row padded, a long one folded) and is then not checked; only
 * a bounded part of the input is read ahead of the rows taken; the rows come back in
 * input order with their cells as read and the result columns.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { sampleRecord } from "../../../harness/sample-record.js";
import type { ParsedInput } from "../../../src/core/input.js";
import type { CheckResult } from "../../../src/service/checking/checker.js";
import { cleanCsv } from "../../../src/service/csv/clean-csv.js";
import { CsvError } from "../../../src/service/csv/csv-error.js";
import { type CsvRow, readCsv } from "../../../src/service/csv/read-csv.js";

/** A stream of `text` in chunks of `size` bytes. */
const chunked = (text: string, size = 3) => {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return Readable.from(chunks);
};

/** Answers every domain at once but the first later, so the order is the reader's, not the checks'. */
const checker = {
  checked: [] as string[],
  async check(input: ParsedInput): Promise<CheckResult> {
    this.checked.push(input.domain);
    if (this.checked.length === 1) await new Promise((resolve) => setTimeout(resolve, 20));
    return {
      record: sampleRecord({ domain: input.domain, block: input.domain === "bad.test" }),
      status: "ok",
      cache: "miss",
    };
  },
};

describe("readCsv", () => {
  it("gives each row its first line and its own cells (a short row is not padded), and says how it read the file", async () => {
    const csv = await readCsv(chunked('\ufeffid;email\r\n1;"a\r\nb"\r\n2\r\n3;x;y\r\n'));
    expect(csv.header).toEqual(["id", "email"]);
    expect(csv.layout).toEqual({
      bom: true,
      recordDelimiter: "\r\n",
      delimiter: ";",
      sniffed: true,
      encoding: "utf-8",
    });
    const rows = [];
    for await (const row of csv.rows)
      rows.push({ cells: row.cells, line: row.line, cellCount: row.cellCount });
    expect(rows).toEqual([
      { cells: ["1", "a\r\nb"], line: 2, cellCount: undefined },
      { cells: ["2"], line: 4, cellCount: 1 },
      { cells: ["3", "x;y"], line: 5, cellCount: 3 },
    ]);
  });

  it("gives the same rows a chunk at a time, at most as many as asked", async () => {
    const text = 'id,email\n1,"a\n\nb"\n\n2,x\n3,"\n"\n4,y,z\n';
    const one = [];
    for await (const row of (await readCsv(chunked(text))).rows) one.push(row);
    const sizes: number[] = [];
    const chunked2 = [];
    for await (const chunk of (await readCsv(chunked(text))).chunks(2)) {
      sizes.push(chunk.length);
      chunked2.push(...chunk);
    }
    const shape = (row: CsvRow) => ({ cells: row.cells, line: row.line, cellCount: row.cellCount });
    expect(one.map(shape)).toEqual([
      { cells: ["1", "a\n\nb"], line: 2, cellCount: undefined },
      { cells: [], line: 5, cellCount: undefined },
      { cells: ["2", "x"], line: 6, cellCount: undefined },
      { cells: ["3", "\n"], line: 7, cellCount: undefined },
      { cells: ["4", "y,z"], line: 9, cellCount: 3 },
    ]);
    expect(chunked2.map(shape)).toEqual(one.map(shape));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
  });

  it("reads ahead a bounded part of a long input while its rows are not taken", async () => {
    const produced = { bytes: 0 };
    const line = `${"x".repeat(90)},a@b.test\n`;
    async function* rowsOf(count: number) {
      for (let sent = 0; sent < count; sent += 100) {
        const chunk = Buffer.from(line.repeat(100));
        produced.bytes += chunk.length;
        yield chunk;
      }
    }
    const csv = await readCsv(Readable.from(rowsOf(200_000)));
    await csv.rows.next();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(produced.bytes).toBeLessThan(1_000_000);
    csv.close();
  });

  it("ends the rows with a CsvError naming the line where a quote opens and never closes", async () => {
    const csv = await readCsv(chunked('email\na@b.c\n"open@b.c\nd@e.f\n'));
    const lines: number[] = [];
    await expect(async () => {
      for await (const row of csv.rows) lines.push(row.line);
    }).rejects.toThrow(
      new CsvError("the CSV cannot be read: the quote opened in the record of line 3 is never closed"),
    );
    expect(lines).toEqual([2]);
  });
});

describe("cleanCsv", () => {
  it("yields the rows in input order with their cells and result columns; a row of the wrong shape is not checked", async () => {
    const csv = await readCsv(chunked("name,email\nAna,ana@good.test\nBo,bad.test\nshort\n"));
    const cleaned = cleanCsv(csv, 1, { checker, concurrency: 4, testNames: true });
    expect(cleaned.header).toBe(
      "name,email,mr_valid,mr_block,mr_risk,mr_reason,mr_domain,mr_disposable,mr_role,mr_free,mr_typo,mr_mx_host,mr_provider\n",
    );
    const lines = [];
    for await (const row of cleaned.rows) lines.push(row.line);
    expect(checker.checked).toEqual(["good.test", "bad.test"]);
    expect(lines).toEqual([
      "Ana,ana@good.test,true,false,10,Business provider,good.test,false,false,false,,mx.example.com,\n",
      "Bo,bad.test,true,true,10,Business provider,bad.test,false,false,false,,mx.example.com,\n",
      "short,,false,true,,wrong_cell_count: line 4 has 1 cells and the header 2; not checked (a missing or unquoted delimiter?); padded with empty cells,,,,,,,\n",
    ]);
  });
});
