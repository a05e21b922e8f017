/**
 * `mailrisk check --csv` within its bounds (docs/cleaning.md "Limits", "Formula cells"): a
 * header wider than CSV_MAX_COLUMNS or a line longer than CSV_MAX_RECORD_BYTES is
 * refused whole with exit 2, naming the line and writing nothing; cells that would start
 * a formula are written with a `'` in front unless `--raw`.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { type CheckWorld, startCheckWorld } from "./check-world.js";

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

describe("check --csv bounds", () => {
  it("refuses a 1,001-column header with exit 2, naming line 1, writing nothing", async () => {
    const header = ["email", ...Array.from({ length: 1000 }, (_, i) => `c${i}`)].join(",");
    const path = join(tmpdir(), `wide-${process.pid}.csv`);
    await writeFile(path, `${header}\nuser@example.com\n`);
    const { code, stdout, stderr } = await check(["--csv", path]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("line 1 has more than 1000 columns (CSV_MAX_COLUMNS); the file is refused");
  });

  it("refuses a line over 64 KiB with exit 2, naming its line", async () => {
    const { code, stderr } = await check(["--csv", "-"], `email\nuser@example.com\n${"x".repeat(70_000)}\n`);
    expect(code).toBe(2);
    expect(stderr).toContain("line 3 is longer than 65536 bytes (CSV_MAX_RECORD_BYTES)");
  });

  it("words its advice with the command's options", async () => {
    const { code, stderr } = await check(["--csv", "--delimiter", ",", "-"], "id;name\n1;Ada\n");
    expect(code).toBe(2);
    expect(stderr).toMatch(/name it with --column NAME\|NUMBER; say so with --delimiter ';'/);
  });
});

describe("check --csv formula cells", () => {
  const csv = "email,note\n=1+2@x.org,=1+2\nuser@example.com,+A1\nuser@example.com,-5\n";

  it("prefixes cells that would start a formula, keeping plain numbers", async () => {
    const { stdout } = await check(["--csv", "-"], csv);
    const rows = parse(stdout) as string[][];
    expect(rows.slice(1).map((row) => row.slice(0, 2))).toEqual([
      ["'=1+2@x.org", "'=1+2"],
      ["user@example.com", "'+A1"],
      ["user@example.com", "-5"],
    ]);
  });

  it("keeps them as read with --raw", async () => {
    const { stdout } = await check(["--csv", "--raw", "-"], csv);
    const rows = parse(stdout) as string[][];
    expect(rows.slice(1).map((row) => row.slice(0, 2))).toEqual([
      ["=1+2@x.org", "=1+2"],
      ["user@example.com", "+A1"],
      ["user@example.com", "-5"],
    ]);
  });
});
