/**
 * `mailrisk check --csv` (README "Clean a list"): a CSV with a header row in, the same
 * CSV out with the result columns appended. Every original cell reads back byte for
 * byte — quotes, commas, line breaks (CRLF and LF) inside quoted fields, a BOM, CRLF
 * records, non-ASCII, leading and trailing spaces — on 10,000 rows (100,000 in `npm run
 * test:soak`), with the record cache warmed through the loopback DNS server first so the
 * run asks DNS nothing. The resolver's time-out is paced (check-world.ts).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { seededRandom } from "../../harness/seeded-random.js";
import { soakSize } from "../../harness/soak.js";
import { RESULT_COLUMNS } from "../../src/service/csv/result-columns.js";
import { type CheckWorld, startCheckWorld } from "./check-world.js";

/** Rows of the round trip: enough for every mix of cells in `npm test`, the full size in the soak. */
const ROWS = soakSize(10_000, 100_000);

let world: CheckWorld;
let database: TestDatabase;

beforeAll(async () => {
  world = await startCheckWorld();
});
afterAll(() => world.close());
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
});
afterEach(() => database.drop());

const check = (args: string[], stdin = "") => world.check(database.url, args, stdin);

/** What a run without --delimiter says on stderr of a comma-separated file. */
const SNIFFED_COMMA =
  'mailrisk: the CSV\'s delimiter is "," (sniffed from its first lines; --delimiter sets another)\n';

/** RFC 4180: a field with a quote, comma or line break is quoted, its quotes doubled; some others are quoted anyway. */
function field(value: string, quoteAnyway: boolean): string {
  return quoteAnyway || /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

const ADDRESSES = [
  "someone@gmail.com",
  "Admin@Gmail.com",
  "user@mailinator.com",
  "x@does-not-exist.test",
  "tie.test",
  "  padded@fallback.test  ",
  "not an address",
  "",
  "a@null-mx.test",
  "ü@münchen.de",
];
const NAMES = [
  'Smith, "Jo"',
  "plain",
  "two\r\nlines",
  "lf\nonly",
  '""',
  " spaced ",
  "=SUM(A1:A2)",
  "Ünïcödé — ✓",
  ",",
  "",
];

function awkwardCsv(rows: number): { text: string; cells: string[][] } {
  const random = seededRandom(4180);
  const header = ["id", "Name", "E-Mail", "note"];
  const cells: string[][] = [header];
  for (let i = 0; i < rows; i++) {
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    cells.push([String(i), pick(NAMES), pick(ADDRESSES), random() < 0.5 ? "" : `n"${i}",\r\n${pick(NAMES)}`]);
  }
  const lines = cells.map((row) => row.map((value) => field(value, random() < 0.1)).join(","));
  return { text: `\ufeff${lines.join("\r\n")}\r\n`, cells };
}

describe("mailrisk check --csv", () => {
  it(`round-trips every cell of ${ROWS.toLocaleString("en")} awkward rows byte for byte, plus the result columns`, async () => {
    // Warm the record cache through the loopback DNS server, as an earlier run would.
    const warm = await check(["--json", ...ADDRESSES.filter((a) => a.trim() !== "" && a.includes("."))]);
    expect(warm.stderr).toBe("");

    const { text, cells } = awkwardCsv(ROWS);
    world.dns.queries.clear();
    const { code, stdout, stderr } = await check(["--csv", "--raw", "-"], text);
    expect({ code, stderr }).toEqual({ code: 1, stderr: SNIFFED_COMMA });
    expect(world.dns.queries.total).toBe(0);

    expect(stdout.startsWith("\ufeffid,Name,E-Mail,note,mr_valid,")).toBe(true);
    expect(stdout.endsWith("\r\n")).toBe(true);
    // Strict: every row has as many cells as the header (a bare LF in a CRLF file is quoted).
    const out = parse(stdout, {
      bom: true,
      record_delimiter: "\r\n",
      relax_column_count: false,
    }) as string[][];
    expect(out).toHaveLength(cells.length);
    expect(out[0]).toEqual([...(cells[0] ?? []), ...RESULT_COLUMNS]);
    let mismatches = 0;
    for (let i = 1; i < cells.length; i++) {
      const original = cells[i] ?? [];
      const row = out[i] ?? [];
      if (row.length !== original.length + RESULT_COLUMNS.length) mismatches++;
      else if (
        original.some((value, j) => Buffer.compare(Buffer.from(value), Buffer.from(row[j] ?? "")) !== 0)
      )
        mismatches++;
    }
    expect(mismatches).toBe(0);

    const result = (row: string[]) =>
      Object.fromEntries(RESULT_COLUMNS.map((name, j) => [name, row[(cells[0]?.length ?? 0) + j]]));
    const byAddress = new Map(out.slice(1).map((row) => [row[2] ?? "", result(row)]));
    expect(byAddress.get("someone@gmail.com")).toMatchObject({
      mr_valid: "true",
      mr_block: "false",
      mr_risk: "0",
      mr_reason: "Public free provider",
      mr_domain: "gmail.com",
      mr_free: "true",
      mr_role: "false",
      mr_provider: "Gmail",
    });
    expect(byAddress.get("Admin@Gmail.com")).toMatchObject({ mr_role: "true" });
    expect(byAddress.get("user@mailinator.com")).toMatchObject({ mr_block: "true", mr_disposable: "true" });
    expect(byAddress.get("x@does-not-exist.test")).toMatchObject({
      mr_valid: "false",
      mr_reason: "NXDOMAIN",
    });
    expect(byAddress.get("not an address")).toMatchObject({
      mr_valid: "false",
      mr_block: "true",
      mr_risk: "",
      mr_reason: expect.stringMatching(/^invalid_domain: /),
    });
    expect(byAddress.get("")).toMatchObject({ mr_reason: expect.stringMatching(/^missing_input: /) });
    expect(byAddress.get("ü@münchen.de")).toMatchObject({ mr_domain: "xn--mnchen-3ya.de" });
  }, 60_000);

  it("finds the column by --column name or number, takes another delimiter, flags short rows and filters with --only", async () => {
    const csv = "id;contact;who\n1;gmail.com;a\n2;mailinator.com;b\n3\n";
    const byNumber = await check(["--csv", "--column", "2", "--delimiter", ";", "--only", "allow"], csv);
    expect(byNumber.stdout).toBe(
      `id;contact;who;${RESULT_COLUMNS.join(";")}\n1;gmail.com;a;true;false;0;Public free provider;gmail.com;false;false;true;;gmail-smtp-in.l.google.com;Gmail\n`,
    );
    const byName = await check(["--csv", "--column", "CONTACT", "--delimiter", ";", "--only", "block"], csv);
    const rows = parse(byName.stdout, { delimiter: ";" }) as string[][];
    expect(rows.map((row) => row.slice(0, 4))).toEqual([
      ["id", "contact", "who", "mr_valid"],
      ["2", "mailinator.com", "b", "true"],
      ["3", "", "", "false"],
    ]);
    expect(rows[2]?.[6]).toMatch(/^wrong_cell_count: line 4 has 1 cells and the header 3; not checked/);
    expect(byName.code).toBe(1);
  });

  it("reads a file given by name, LF kept, without a BOM", async () => {
    const path = join(database.url.replace(/^sqlite:/, "").replace(/mailrisk\.db$/, ""), "list.csv");
    await writeFile(path, "Email Address,x\ngmail.com,1\n");
    const { code, stdout, stderr } = await check(["--csv", path]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: SNIFFED_COMMA });
    expect(stdout.split("\n")[1]).toMatch(/^gmail\.com,1,true,false,0,/);
    expect(stdout.charCodeAt(0)).not.toBe(0xfeff);
  });

  it.each([
    ["name,phone\nx,1\n", [], 2, /no column named like an address/],
    ["email\nx\n", ["--column", "mail"], 2, /no column "mail"/],
    ['email\n"unclosed\n', [], 2, /the quote opened in the record of line 2 is never closed/],
    ["", [], 2, /the CSV is empty/],
  ])("%j %j exits %i", async (csv, args, exit, message) => {
    const { code, stderr } = await check(["--csv", ...args], csv);
    expect(code).toBe(exit);
    expect(stderr).toMatch(message);
  });
});
