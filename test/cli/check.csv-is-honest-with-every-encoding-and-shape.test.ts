/**
 * `mailrisk check --csv` with the files people really have (docs/cleaning.md): every
 * output reads back through a strict RFC 4180 parser with one record per input row and
 * as many cells in each as the header (a cell with CR or LF quoted whatever the line
 * ending); Latin-1 and Windows-1252 files are refused with their line and the option to
 * read them, and read right with it; UTF-16 is read by its BOM; rows with too many or
 * too few cells are kept and said so; the delimiter is sniffed and named; a CSV that
 * cannot be read exits 2, and writes nothing when it is a file, only whole rows when it
 * streams in.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { run } from "../../src/cli/check-command.js";
import { loadConfig } from "../../src/config.js";
import { RESULT_COLUMNS } from "../../src/service/csv/result-columns.js";
import { type CheckWorld, startCheckWorld } from "./check-world.js";

let world: CheckWorld;
let database: TestDatabase;
let dir: string;

beforeAll(async () => {
  world = await startCheckWorld();
});
afterAll(() => world.close());
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
  dir = await mkdtemp(join(tmpdir(), "mailrisk-csv-"));
});
afterEach(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

/** `mailrisk check --csv <args>` reading `input` from a file (`file: true`) or from stdin, as bytes. */
async function check(input: Buffer | string, args: string[] = [], { file = false } = {}) {
  const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input);
  const cli = createTestCli(database.url);
  const config = loadConfig({ ...world.env, DATABASE_URL: database.url });
  let source = "-";
  if (file) {
    source = join(dir, "input.csv");
    await writeFile(source, bytes);
  }
  // Stdin comes in pieces, as from a pipe.
  const pieces = Array.from({ length: Math.ceil(bytes.length / 16_384) }, (_, i) =>
    bytes.subarray(i * 16_384, (i + 1) * 16_384),
  );
  const code = await run(["--csv", source, ...args], { ...cli.ctx, config, stdin: Readable.from(pieces) });
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/**
 * A strict RFC 4180 reader: records end with `recordDelimiter` only; an unquoted field
 * holds no quote, CR or LF; a quoted one doubles its quotes. Throws on anything else.
 */
function strictRfc4180(text: string, delimiter = ",", recordDelimiter = "\r\n"): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  for (;;) {
    let field = "";
    if (text[i] === '"') {
      i++;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) throw new Error(`unclosed quote in record ${records.length + 1}`);
        field += text.slice(i, quote);
        if (text[quote + 1] === '"') {
          field += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
    } else {
      while (i < text.length && text[i] !== delimiter && !text.startsWith(recordDelimiter, i)) {
        if (text[i] === '"' || text[i] === "\r" || text[i] === "\n") {
          throw new Error(`record ${records.length + 1}: ${JSON.stringify(text[i])} in an unquoted field`);
        }
        field += text[i];
        i++;
      }
    }
    record.push(field);
    if (text[i] === delimiter) {
      i++;
      continue;
    }
    records.push(record);
    record = [];
    if (text.startsWith(recordDelimiter, i)) i += recordDelimiter.length;
    else if (i < text.length) throw new Error(`record ${records.length}: junk after a quoted field`);
    if (i >= text.length) break;
  }
  const width = records[0]?.length ?? 0;
  records.forEach((row, n) => {
    if (row.length !== width)
      throw new Error(`record ${n + 1} has ${row.length} fields, the header ${width}`);
  });
  return records;
}

const RESULT = (row: string[], width: number) =>
  Object.fromEntries(RESULT_COLUMNS.map((name, j) => [name, row[width + j]]));

describe("quoting", () => {
  it.each([
    ["CRLF", "\r\n"],
    ["LF", "\n"],
  ])("quotes every cell with CR or LF in a %s file, so each row reads back as one record", async (_, eol) => {
    const cells = [
      ["name", "email"],
      ["lf\nonly", "someone@gmail.com"],
      ["cr\ronly", "someone@gmail.com"],
      ["both\r\nends", "someone@gmail.com"],
      ['say "hi", ok', "someone@gmail.com"],
    ];
    const text = cells
      .map((row) => row.map((cell) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)))
      .map((row) => row.join(","))
      .join(eol);
    const { code, stdout } = await check(`${text}${eol}`, ["--delimiter", ","]);
    expect(code).toBe(0);
    const out = strictRfc4180(stdout, ",", eol);
    expect(out.map((row) => row.slice(0, 2))).toEqual(cells);
    expect(out).toHaveLength(cells.length);
  });
});

describe("encodings", () => {
  const latin1 = Buffer.concat([
    Buffer.from("name,email\r\nAnna,anna@gmail.com\r\nM"),
    Buffer.from([0xfc]),
    Buffer.from("ller,m@gmail.com\r\n"),
  ]);

  it("refuses a Latin-1 file read as UTF-8, naming the line and --encoding, writing nothing", async () => {
    for (const file of [true, false]) {
      const { code, stdout, stderr } = await check(latin1, [], { file });
      expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
      expect(stderr).toMatch(/the CSV is not valid UTF-8: line 3 has the byte 0xFC/);
      expect(stderr).toMatch(/--encoding latin1.*--encoding windows-1252.*--encoding utf-16/);
      expect(stderr).not.toContain("\ufffd");
    }
  });

  it.each([
    ["latin1", latin1, "Müller"],
    [
      "windows-1252",
      Buffer.from([...Buffer.from("name,email\n"), 0x80, ...Buffer.from("uro,e@gmail.com\n")]),
      "€uro",
    ],
  ])("reads it with --encoding %s, and writes UTF-8", async (encoding, bytes, name) => {
    const { code, stdout, stderr } = await check(bytes, ["--encoding", encoding]);
    expect(code).toBe(0);
    expect(stderr).toContain("the CSV was read as windows-1252; the output is UTF-8");
    const names = strictRfc4180(stdout, ",", stdout.includes("\r\n") ? "\r\n" : "\n").map((row) => row[0]);
    expect(names).toContain(name);
  });

  it("reads UTF-16 by its BOM (little or big endian), and without one with --encoding utf-16", async () => {
    const text = "name,email\r\nZoë,zoe@gmail.com\r\n";
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const be = Buffer.from(le);
    be.swap16();
    for (const bytes of [le, be]) {
      const { code, stdout } = await check(bytes);
      expect(code).toBe(0);
      expect(stdout.startsWith("\ufeffname,email,mr_valid")).toBe(true);
      expect(strictRfc4180(stdout.slice(1))[1]?.slice(0, 2)).toEqual(["Zoë", "zoe@gmail.com"]);
    }
    const bare = Buffer.from(text, "utf16le");
    const refused = await check(bare);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/NUL bytes.*UTF-16 without a BOM\?.*--encoding utf-16/);
    const read = await check(bare, ["--encoding", "utf-16"]);
    expect(read.code).toBe(0);
    expect(strictRfc4180(read.stdout)[1]?.[0]).toBe("Zoë");
  });

  it("refuses invalid UTF-8 far into streamed input: exit 2, the line, and only whole rows before it", async () => {
    const note = "n".repeat(100);
    const rows = Array.from({ length: 1000 }, (_, i) => `row${i},someone@gmail.com,${note}`);
    const bytes = Buffer.concat([
      Buffer.from(`name,email,note\n${rows.join("\n")}\nbad`),
      Buffer.from([0xe9]),
      Buffer.from(",someone@gmail.com,x\n"),
    ]);
    const { code, stdout, stderr } = await check(bytes);
    expect(code).toBe(2);
    expect(stderr).toMatch(/line 1002 has the byte 0xE9/);
    expect(stderr).toMatch(/the output stops after \d+ complete rows/);
    const out = strictRfc4180(stdout, ",", "\n");
    expect(out.length).toBeGreaterThan(1);
    expect(out.at(-1)?.[0]).toMatch(/^row\d+$/);
  });
});

describe("rows of the wrong shape", () => {
  it("keeps rows with too many or too few cells, unchecked, says so in mr_reason, and stays rectangular", async () => {
    const text = [
      "name,email,signed_up",
      "Ana,ana@gmail.com,2024-05-01",
      "Rivera, Ana,rivera@gmail.com,2024-05-02",
      "Bob,bob@tie.test",
      "",
      "Cy,cy@gmail.com,2024-05-03",
    ].join("\n");
    world.dns.queries.clear();
    const { code, stdout, stderr } = await check(`${text}\n`);
    expect(code).toBe(1);
    expect(stderr).not.toMatch(/cannot be read/);
    const out = strictRfc4180(stdout, ",", "\n");
    expect(out).toHaveLength(6);
    expect(out[1] && RESULT(out[1], 3)).toMatchObject({
      mr_valid: "true",
      mr_reason: "Public free provider",
    });
    expect(out[2]?.slice(0, 3)).toEqual(["Rivera", " Ana", "rivera@gmail.com,2024-05-02"]);
    expect(out[2] && RESULT(out[2], 3)).toMatchObject({
      mr_valid: "false",
      mr_block: "true",
      mr_reason: expect.stringMatching(
        /^wrong_cell_count: line 3 has 4 cells and the header 3; not checked .*its last 2 cells kept together/,
      ),
    });
    expect(out[3]?.slice(0, 3)).toEqual(["Bob", "bob@tie.test", ""]);
    expect(out[3] && RESULT(out[3], 3)).toMatchObject({
      mr_reason: expect.stringMatching(/^wrong_cell_count: line 4 has 2 cells and the header 3; .*padded/),
    });
    // A blank line is a row of empty cells: no address.
    expect(out[4] && RESULT(out[4], 3)).toMatchObject({
      mr_reason: expect.stringMatching(/^missing_input: /),
    });
    expect(out[5] && RESULT(out[5], 3)).toMatchObject({ mr_valid: "true" });
    // The short row's address was not looked up.
    expect(world.dns.queries.count("tie.test")).toBe(0);
  });
});

describe("delimiters", () => {
  it.each([
    [";", '";"'],
    ["\t", "tab"],
    ["|", '"|"'],
    [",", '","'],
  ])("sniffs %j and says so on stderr; --delimiter says nothing", async (delimiter, name) => {
    const text = [
      `id${delimiter}name${delimiter}email`,
      `1${delimiter}"A, B"${delimiter}someone@gmail.com`,
    ].join("\n");
    const sniffed = await check(`${text}\n`);
    expect(sniffed.code).toBe(0);
    expect(sniffed.stderr).toBe(
      `mailrisk: the CSV's delimiter is ${name} (sniffed from its first lines; --delimiter sets another)\n`,
    );
    expect(strictRfc4180(sniffed.stdout, delimiter, "\n")[1]?.slice(0, 3)).toEqual([
      "1",
      "A, B",
      "someone@gmail.com",
    ]);
    const given = await check(`${text}\n`, ["--delimiter", delimiter === "\t" ? "tab" : delimiter]);
    expect({ code: given.code, stderr: given.stderr }).toEqual({ code: 0, stderr: "" });
  });

  it("hints at the delimiter when the header is one column holding another", async () => {
    const { code, stderr } = await check("name;email\nAna;ana@gmail.com\n", ["--delimiter", ","]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /no column named like an address .*the header is one column "name;email": is the delimiter ";"\?/,
    );
  });
});

describe("a CSV that cannot be read", () => {
  it("exits 2 without a line of output when it is a file", async () => {
    const text = `name,email\n${"x,someone@gmail.com\n".repeat(5000)}y,"never closed\n`;
    const { code, stdout, stderr } = await check(text, [], { file: true });
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toMatch(/the quote opened in the record of line 5002 is never closed/);
  });

  it("exits 2 after whole rows only when it streams in", async () => {
    const text = `name,email\n${"x,someone@gmail.com\n".repeat(5000)}y,"never closed\n`;
    const { code, stdout, stderr } = await check(text);
    expect(code).toBe(2);
    expect(stderr).toMatch(/line 5002 is never closed; the output stops after 5000 complete rows/);
    expect(strictRfc4180(stdout, ",", "\n")).toHaveLength(5001);
  });
});
