import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { run } from "../../src/cli/plans.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
});
afterEach(() => database.drop());

async function plans(...args: string[]) {
  const cli = createTestCli(database.url);
  const code = await run(args, cli.ctx);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

describe("plans", () => {
  it("creates plans, with 30-day periods unless told otherwise, and lists them", async () => {
    expect(await plans("create", "pro", "--quota", "5000", "--period-days", "7")).toEqual({
      code: 0,
      stdout: "Created plan pro: 5000 requests per 7 days.\n",
      stderr: "",
    });
    expect((await plans("create", "team", "--quota", "20000")).code).toBe(0);

    const listed = await plans("list", "--json");
    expect(JSON.parse(listed.stdout)).toEqual([
      { name: "free", quota: 1000, period_days: 30 },
      { name: "pro", quota: 5000, period_days: 7 },
      { name: "team", quota: 20000, period_days: 30 },
    ]);

    const text = (await plans("list")).stdout.split("\n");
    expect(text[0]).toMatch(/^NAME\s+QUOTA\s+PERIOD DAYS$/);
    expect(text).toContain("pro   5000   7");
  });

  it("refuses an existing name with exit code 1", async () => {
    const { code, stderr } = await plans("create", "free", "--quota", "1");
    expect(code).toBe(1);
    expect(stderr).toMatch(/plan "free" already exists/);
  });

  it.each([
    [["create", "pro"], /needs --quota/],
    [["create", "--quota", "5"], /exactly one name/],
    [["create", "pro", "--quota", "lots"], /--quota must be a whole number/],
    [["create", "pro", "--quota=-5"], /--quota must be a whole number/],
    [["create", "pro", "--quota", "1.5"], /--quota must be a whole number/],
    [["create", "pro", "--quota", "5", "--period-days", "0"], /period must be a whole number of days/],
    [["create", "Pro!", "--quota", "5"], /plan name/],
    [["list", "extra"], /positional/],
    [["delete", "pro"], /unknown plans command "delete"/],
  ])("exits 2 on bad arguments %j", async (args, message) => {
    const { code, stderr } = await plans(...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/usage: mailrisk plans create/);
  });
});
