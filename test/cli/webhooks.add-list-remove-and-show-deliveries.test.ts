/**
 * `mailrisk webhooks add|list|remove|deliveries`: a generated secret is shown once and
 * never listed, a given one is not echoed, URLs and events are checked (exit 2), removing
 * or showing the deliveries of an unknown webhook exits 1, and deliveries show each
 * event's attempts and next try, with timestamps as every other output writes them.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { mxFacts } from "../../harness/sample-facts.js";
import { run } from "../../src/cli/webhooks-command.js";
import { formatTimestamp } from "../../src/core/record.js";
import { openStore } from "../../src/store/index.js";

let database: TestDatabase;

beforeEach(async () => {
  database = await createTestDatabase("sqlite");
  const store = await openStore(database.location);
  await store.migrate();
  await store.close();
});
afterEach(() => database.drop());

async function webhooks(...args: string[]) {
  const cli = createTestCli(database.url);
  const code = await run(args, cli.ctx);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

it("adds with a generated secret shown once, lists without secrets, and removes", async () => {
  const added = await webhooks("add", "https://hooks.example.com/in");
  expect(added.code).toBe(0);
  const secret = /^ {4}([0-9a-f]{64})$/m.exec(added.stdout)?.[1];
  expect(secret).toBeDefined();
  expect(added.stdout).toContain("shown only this once");
  const id = /Created webhook (wh_\w+) for domain.blocked, domain.unblocked/.exec(
    added.stdout,
  )?.[1] as string;

  const given = await webhooks(
    "add",
    "http://127.0.0.1:9/x",
    "--events",
    "domain.unblocked",
    "--secret",
    "0123456789abcdef",
    "--json",
  );
  expect(given.code).toBe(0);
  expect(JSON.parse(given.stdout)).toEqual({
    id: expect.stringMatching(/^wh_/),
    url: "http://127.0.0.1:9/x",
    events: ["domain.unblocked"],
    created_at: expect.any(String),
  });

  const listed = await webhooks("list", "--json");
  expect(JSON.parse(listed.stdout).map((w: { url: string }) => w.url)).toEqual([
    "https://hooks.example.com/in",
    "http://127.0.0.1:9/x",
  ]);
  expect(listed.stdout).not.toContain(secret as string);
  const table = (await webhooks("list")).stdout;
  expect(table).toMatch(/^ID\s+EVENTS\s+CREATED\s+URL/);
  expect(table).toMatch(/ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00 /);
  expect(JSON.parse(listed.stdout)[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);

  expect((await webhooks("remove", id)).code).toBe(0);
  const again = await webhooks("remove", id);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain(`unknown webhook ${id}`);
  const deliveries = await webhooks("deliveries", "wh_nope");
  expect([deliveries.code, deliveries.stderr]).toEqual([1, "mailrisk: unknown webhook wh_nope\n"]);
});

it("refuses a URL that is not http(s), unknown events and a short secret", async () => {
  for (const args of [
    ["add", "ftp://example.com/x"],
    ["add", "not a url"],
    ["add", "https://example.com/x", "--events", "domain.deleted"],
    ["add", "https://example.com/x", "--secret", "short"],
    ["add"],
  ]) {
    const { code, stderr } = await webhooks(...args);
    expect(code, args.join(" ")).toBe(2);
    expect(stderr).toMatch(/usage: mailrisk webhooks add/);
  }
});

it("shows each event's attempts, status codes and next try", async () => {
  const store = await openStore(database.location);
  try {
    const hook = await store.webhooks.createWebhook({
      url: "http://127.0.0.1:9/",
      secret: "s".repeat(16),
      events: ["domain.blocked"],
      now: new Date(),
    });
    const now = new Date();
    await store.records.saveFacts("shop.test", mxFacts("shop.test"), now, false);
    await store.records.noteBlock("shop.test", true, now, {
      watchedSince: new Date(0),
      record: { reason: "Operator override" },
    });
    const [event] = await store.webhooks.claimDue("cli-test", now, new Date(now.getTime() + 60_000), 10);
    const next = new Date(now.getTime() + 10_000);
    await store.webhooks.finishAttempt(
      event?.id as string,
      "cli-test",
      { attempt: 1, at: now, statusCode: 500, error: null, durationMs: 12 },
      { status: "pending", nextAttemptAt: next },
    );
    const table = await webhooks("deliveries", hook.id);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/EVENT\s+WEBHOOK\s+TYPE\s+DOMAIN\s+STATUS\s+ATTEMPTS\s+NEXT TRY/);
    expect(table.stdout).toContain("domain.blocked");
    expect(table.stdout).toContain("1:500");
    expect(table.stdout).toContain(formatTimestamp(next));
    const [json] = JSON.parse((await webhooks("deliveries", "--json")).stdout);
    expect(json).toMatchObject({
      webhook_id: hook.id,
      domain: "shop.test",
      status: "pending",
      next_attempt_at: formatTimestamp(next),
      attempts: [{ attempt: 1, status_code: 500, error: null, duration_ms: 12 }],
    });
  } finally {
    await store.close();
  }
});
