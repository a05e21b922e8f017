import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { mxFacts } from "../../harness/sample-facts.js";
import { run } from "../../src/cli/records-command.js";
import { openStore } from "../../src/store/index.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
  const store = await openStore(database.location);
  try {
    await store.migrate();
    for (const domain of ["example.com", "example.org", "xn--mnchen-3ya.de"]) {
      await store.records.saveFacts(domain, mxFacts(domain), new Date(), false);
    }
  } finally {
    await store.close();
  }
});
afterEach(() => database.drop());

async function records(...args: string[]) {
  const cli = createTestCli(database.url);
  const code = await run(args, cli.ctx);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

async function stored(domain: string): Promise<boolean> {
  const store = await openStore(database.location);
  try {
    return (await store.records.getFacts(domain)) !== undefined;
  } finally {
    await store.close();
  }
}

it("purges the named domains, normalised like a check's input", async () => {
  expect(await records("purge", "EXAMPLE.com", "münchen.de", "unknown.net")).toEqual({
    code: 0,
    stdout: "Purged 2 cached records. Running servers take it within a second.\n",
    stderr: "",
  });
  expect(await stored("example.com")).toBe(false);
  expect(await stored("xn--mnchen-3ya.de")).toBe(false);
  expect(await stored("example.org")).toBe(true);
});

it("purges every record with --all", async () => {
  expect((await records("purge", "--all")).stdout).toBe(
    "Purged 3 cached records. Running servers take it within a second.\n",
  );
  expect(await stored("example.org")).toBe(false);
});

it.each([
  [["purge"], /^mailrisk: records purge needs the domains to purge, or --all for every record\n/],
  [["purge", "--all", "example.com"], /takes domains or --all, not both \(got --all and example\.com\)/],
  [["purge", "not a domain"], /is not a domain/],
  [["wipe"], /unknown records command/],
])("exits 2 on %j", async (args, message) => {
  const result = await records(...args);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(await stored("example.com")).toBe(true);
});
