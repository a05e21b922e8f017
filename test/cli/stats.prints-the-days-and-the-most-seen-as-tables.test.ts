/**
 * `mailrisk stats` without `--json` (docs/console.md "Traffic"): a table of the 30 days
 * (checks by surface, blocks and their reasons) with a total row, then the lists of the
 * most seen; an empty list says so; a name from outside reaches the terminal escaped.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { openTestStore, type TestStore } from "../../harness/databases.js";
import { run as stats } from "../../src/cli/stats-command.js";

const NOW = new Date("2026-11-27T12:00:00Z");
const TODAY = new Date("2026-11-27T00:00:00Z");

let db: TestStore;
beforeEach(async () => {
  db = await openTestStore("sqlite");
});
afterEach(() => db.cleanup());

async function cli(...args: string[]) {
  const test = createTestCli(db.database.url);
  test.ctx.clock = () => NOW;
  const code = await stats(args, test.ctx);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

it("prints the days with their checks and blocks, a total, and the most seen", async () => {
  await db.store.traffic.addCounts([
    { day: TODAY, kind: "surface", name: "api", count: 1200 },
    { day: TODAY, kind: "surface", name: "pages", count: 3 },
    { day: TODAY, kind: "block", name: "Disposable", count: 2 },
    { day: TODAY, kind: "block", name: "Parked", count: 1 },
    { day: TODAY, kind: "provider", name: "mailinator.com", count: 2 },
    { day: TODAY, kind: "domain", name: "bad\u001b[31m.example", count: 1 },
  ]);
  const { code, stdout, stderr } = await cli();
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  const lines = stdout.split("\n");
  expect(lines[0]).toBe("Traffic from 2026-10-29 to 2026-11-27 (UTC days):");
  expect(lines[1]).toMatch(/^DAY +API +BULK +JOBS +PAGES +CHECKS +BLOCKED +BLOCKS BY REASON$/);
  expect(lines.filter((line) => /^2026-1\d-\d\d /.test(line))).toHaveLength(30);
  expect(lines.find((line) => line.startsWith("2026-11-27"))).toMatch(
    /^2026-11-27 +1,200 +0 +0 +3 +1,203 +3 +Disposable 2, Parked 1$/,
  );
  expect(lines.find((line) => line.startsWith("total"))).toMatch(/^total +1,200 +0 +0 +3 +1,203 +3/);
  expect(stdout).toContain("Disposable providers seen most:\nPROVIDER        ANSWERS\nmailinator.com  2\n");
  expect(stdout).not.toContain("\u001b");
  expect(stdout).toContain("Accounts that used the most: none\n");
  expect(stdout).toContain("Keys that used the most: none\n");
});

it("refuses an argument it does not know with its usage", async () => {
  const { code, stderr } = await cli("--days", "3");
  expect(code).toBe(2);
  expect(stderr).toContain("usage: mailrisk stats [--json]");
});
