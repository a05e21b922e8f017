import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { run } from "../../src/cli/plans-command.js";
import { openStore } from "../../src/store/index.js";

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
      { name: "unlimited", quota: null, period_days: 30 },
      { name: "pro", quota: 5000, period_days: 7 },
      { name: "team", quota: 20000, period_days: 30 },
    ]);

    const text = (await plans("list")).stdout.split("\n");
    expect(text[0]).toMatch(/^NAME\s+QUOTA\s+PERIOD DAYS$/);
    expect(text).toContain("pro        5000       7");
    expect(text).toContain("unlimited  unlimited  30");
  });

  it("refuses an existing name with exit code 1", async () => {
    const { code, stderr } = await plans("create", "free", "--quota", "1");
    expect(code).toBe(1);
    expect(stderr).toMatch(/plan "free" already exists/);
  });

  it.each([
    [["create", "pro"], /needs --quota/],
    [["create", "--quota", "5"], /plans create needs a plan name/],
    [["create", "pro", "gold", "--quota", "5"], /plans create takes one plan name; "gold" is too much/],
    [["create", "pro", "--quota", "lots"], /--quota must be a whole number/],
    [["create", "pro", "--quota=-5"], /--quota must be a whole number/],
    [["create", "pro", "--quota", "1.5"], /--quota must be a whole number/],
    [["create", "pro", "--quota", "5", "--period-days", "0"], /period must be a whole number of days/],
    [["create", "Pro!", "--quota", "5"], /plan name/],
    [["list", "extra"], /unexpected argument "extra"/],
    [["delete"], /plans delete needs a plan name/],
    [["remove", "pro"], /unknown plans command "remove" \(plans takes create, update, list, delete\)/],
  ])("exits 2 on bad arguments %j", async (args, message) => {
    const { code, stderr } = await plans(...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/usage: mailrisk plans /);
  });
});

describe("plans delete", () => {
  it("deletes a plan no key uses, and refuses one keys use until they moved, revoked ones included", async () => {
    await plans("create", "trial", "--quota", "10");
    await plans("create", "spare", "--quota", "10");
    expect(await plans("delete", "spare")).toEqual({ code: 0, stdout: "Deleted plan spare.\n", stderr: "" });

    const store = await openStore(database.location);
    try {
      const { key } = await store.keys.createKey({ plan: "trial", now: new Date() });
      await store.keys.revokeKey(key.id, new Date());
      const refused = await plans("delete", "trial");
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^mailrisk: plan "trial" is used by 1 key \(revoked ones included\); move them/,
      );
      expect(await store.plans.getPlan("trial")).toBeDefined();
      await store.keys.setKeyPlan(key.id, "free");
    } finally {
      await store.close();
    }
    expect((await plans("delete", "trial")).code).toBe(0);
    expect(
      JSON.parse((await plans("list", "--json")).stdout).map((plan: { name: string }) => plan.name),
    ).toEqual(["free", "unlimited"]);
    const unknown = await plans("delete", "trial");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown plan "trial"/);
  });
});

describe("plans update and unlimited", () => {
  it("creates an unlimited plan and updates quotas and periods", async () => {
    expect(await plans("create", "partner", "--quota", "unlimited")).toEqual({
      code: 0,
      stdout: "Created plan partner: unlimited requests per 30 days.\n",
      stderr: "",
    });
    expect((await plans("update", "partner", "--quota", "500", "--period-days", "7")).stdout).toBe(
      "Updated plan partner: 500 requests per 7 days. Running servers take it within a second.\n",
    );
    expect((await plans("update", "free", "--quota", "unlimited")).stdout).toBe(
      "Updated plan free: unlimited requests per 30 days. Running servers take it within a second.\n",
    );
    expect(JSON.parse((await plans("list", "--json")).stdout)).toEqual([
      { name: "free", quota: null, period_days: 30 },
      { name: "unlimited", quota: null, period_days: 30 },
      { name: "partner", quota: 500, period_days: 7 },
    ]);
  });

  it.each([
    [["update", "gold", "--quota", "5"], 1, /unknown plan "gold"/],
    [["update", "free"], 2, /needs --quota or --period-days/],
    [["update", "free", "--quota", "many"], 2, /--quota must be a whole number or "unlimited"/],
    [["update", "free", "--period-days", "0"], 2, /period must be a whole number of days/],
    [["update"], 2, /plans update needs a plan name/],
  ])("plans %j exits %i", async (args, code, message) => {
    const result = await plans(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });
});
