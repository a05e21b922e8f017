/**
 * Links that open (docs/deploy.md "Mail and links"): SMTP_URL without PUBLIC_URL stops the
 * start with a configuration error naming both (exit 2), so no mail carries a bare path;
 * without either, the CLI's one-time link is a path and its text says which address to
 * put in front of it; with PUBLIC_URL it is whole and says nothing more.
 */
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestCli } from "../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../harness/databases.js";
import { run } from "../src/cli/accounts-command.js";
import { runCli } from "../src/cli/run-cli.js";
import { ConfigError, loadConfig } from "../src/config.js";
import { openStore } from "../src/store/index.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
  const store = await openStore(database.location);
  await store.migrate();
  await store.close();
});
afterEach(() => database.drop());

it("refuses SMTP_URL without PUBLIC_URL with a configuration error naming both (exit 2)", async () => {
  expect(() => loadConfig({ SMTP_URL: "smtp://127.0.0.1:2525" })).toThrow(ConfigError);
  expect(() => loadConfig({ SMTP_URL: "smtp://127.0.0.1:2525" })).toThrow(/SMTP_URL needs PUBLIC_URL/);
  expect(
    loadConfig({ SMTP_URL: "smtp://127.0.0.1:2525", PUBLIC_URL: "https://mailrisk.example.org" }).smtpUrl,
  ).toBe("smtp://127.0.0.1:2525");
  let said = "";
  const stderr = new PassThrough();
  stderr.on("data", (chunk: Buffer) => {
    said += chunk.toString();
  });
  const env = { SMTP_URL: "smtp://127.0.0.1:2525", SIGNUP: "invite", DATABASE_URL: database.url };
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr, env, cwd: process.cwd() };
  expect(await runCli(["serve"], io)).toBe(2);
  expect(said).toMatch(/configuration error: SMTP_URL needs PUBLIC_URL/);
});

it("prints a bare path without PUBLIC_URL, saying which address to put in front of it", async () => {
  const cli = createTestCli(database.url, "", { SIGNUP: "invite", HOST: "127.0.0.1", PORT: "8080" });
  expect(await run(["invite", "ann@example.com"], cli.ctx)).toBe(0);
  const [, path] = /\n(\/invite\/\S+)\n/.exec(cli.stdout()) ?? [];
  expect(path).toBeDefined();
  expect(cli.stdout()).toContain("PUBLIC_URL is not set");
  expect(cli.stdout()).toContain(`http://127.0.0.1:8080${path}`);
});

it("prints a whole link with PUBLIC_URL, and nothing more", async () => {
  const env = { SIGNUP: "invite", PUBLIC_URL: "https://mailrisk.example.org/" };
  const cli = createTestCli(database.url, "", env);
  expect(await run(["invite", "ann@example.com"], cli.ctx)).toBe(0);
  expect(cli.stdout()).toMatch(/\nhttps:\/\/mailrisk\.example\.org\/invite\/\S+\n$/);
  expect(cli.stdout()).not.toContain("PUBLIC_URL");
});
