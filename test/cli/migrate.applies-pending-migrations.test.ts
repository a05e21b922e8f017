import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { run } from "../../src/cli/migrate-command.js";
import { migrations } from "../../src/store/migrations/index.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
});
afterEach(() => database.drop());

it("applies the pending migrations, then reports the schema up to date", async () => {
  const first = createTestCli(database.url);
  expect(await run([], first.ctx)).toBe(0);
  const applied = Object.keys(migrations).map((name) => `Applied migration ${name}\n`);
  expect(first.stdout()).toBe(`${applied.join("")}Database schema is now up to date.\n`);

  const second = createTestCli(database.url);
  expect(await run([], second.ctx)).toBe(0);
  expect(second.stdout()).toBe("Database schema is up to date.\n");
});

it("exits 2 on arguments", async () => {
  const cli = createTestCli(database.url);
  expect(await run(["--force"], cli.ctx)).toBe(2);
  expect(cli.stderr()).toMatch(/usage: mailrisk migrate/);
});
