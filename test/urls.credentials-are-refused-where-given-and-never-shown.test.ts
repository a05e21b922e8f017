/**
 * No credentials in URLs (docs/security.md, "No credentials in URLs"): a webhook URL or a
 * LIST_SOURCES URL with a user name or password is refused where it is given (CLI exit 2,
 * admin API 400 `invalid_body`, configuration exit 2 naming LIST_SOURCES), naming the
 * rule and never the password; one stored before the rule is shown without it by
 * `webhooks list|deliveries`, `lists status` and the admin API.
 */
import { Readable, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../harness/databases.js";
import { mxFacts } from "../harness/sample-facts.js";
import { run as lists } from "../src/cli/lists-command.js";
import { runCli } from "../src/cli/run-cli.js";
import { run as webhooks } from "../src/cli/webhooks-command.js";
import { ConfigError, loadConfig } from "../src/config.js";
import { parseWebUrl, withoutCredentials } from "../src/core/web-url.js";
import { openStore } from "../src/store/index.js";
import { type HttpFixture, openHttpFixture } from "./http/helpers.js";

const PASSWORD = "hunter2secret";
const WITH_CREDENTIALS = `http://alice:${PASSWORD}@127.0.0.1:9/hook`;

describe("parseWebUrl and withoutCredentials", () => {
  it.each([
    [WITH_CREDENTIALS, /must not carry a user name or password/],
    [`http://${PASSWORD}@example.com/`, /must not carry a user name or password/],
    [`ftp://alice:${PASSWORD}@example.com/`, /must be http or https/],
    [`http://alice:${PASSWORD}@exa mple.com/`, /is not a URL/],
  ])("refuses %s without repeating the password", (text, reason) => {
    const result = parseWebUrl(text);
    expect(result.ok).toBe(false);
    const why = result.ok ? "" : result.reason;
    expect(why).toMatch(reason);
    expect(why).not.toContain(PASSWORD);
  });

  it("takes an http(s) URL without credentials", () => {
    expect(parseWebUrl("https://hooks.example.com/in?x=1")).toMatchObject({ ok: true });
  });

  it("hides the credentials of every URL in a text", () => {
    expect(withoutCredentials(`fetch ${WITH_CREDENTIALS} failed: see https://u@x.test/`)).toBe(
      "fetch http://***@127.0.0.1:9/hook failed: see https://***@x.test/",
    );
    expect(withoutCredentials("https://example.com/a@b")).toBe("https://example.com/a@b");
  });
});

describe("LIST_SOURCES", () => {
  it("refuses a URL with credentials, naming the setting and the rule", () => {
    const load = () => loadConfig({ LIST_SOURCES: `mylist=http://alice:${PASSWORD}@127.0.0.1:9/a.txt` });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/^LIST_SOURCES: the URL of mylist, .* must not carry a user name or password/);
    expect(load).not.toThrow(new RegExp(PASSWORD));
  });

  it("makes a command exit 2", async () => {
    const chunks: string[] = [];
    const stderr = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString());
        callback();
      },
    });
    const code = await runCli(["lists", "status"], {
      stdin: Readable.from([]),
      stdout: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
      stderr,
      env: {
        LIST_SOURCES: `mylist=http://alice:${PASSWORD}@127.0.0.1:9/a.txt`,
        DATABASE_URL: "sqlite::memory:",
      },
      cwd: process.cwd(),
    });
    expect(code).toBe(2);
    expect(chunks.join("")).toContain("configuration error: LIST_SOURCES");
    expect(chunks.join("")).not.toContain(PASSWORD);
  });
});

describe("webhooks", () => {
  let database: TestDatabase;
  let fixture: HttpFixture;
  const TOKEN = "w".repeat(40);

  beforeEach(async () => {
    database = await createTestDatabase("sqlite");
    const store = await openStore(database.location);
    await store.migrate();
    await store.close();
    fixture = await openHttpFixture({ adminToken: TOKEN });
  });
  afterEach(async () => {
    await fixture.close();
    await database.drop();
  });

  async function cli(command: typeof webhooks, ...args: string[]) {
    const test = createTestCli(database.url);
    const code = await command(args, test.ctx);
    return { code, stdout: test.stdout(), stderr: test.stderr() };
  }

  it("refuses a URL with credentials in the CLI (exit 2) and the admin API (400), never echoing the password", async () => {
    const added = await cli(webhooks, "add", WITH_CREDENTIALS);
    expect(added.code).toBe(2);
    expect(added.stderr).toContain("must not carry a user name or password");
    expect(added.stderr).not.toContain(PASSWORD);
    const refused = await fixture.app.inject({
      method: "POST",
      url: "/admin/webhooks",
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: { url: WITH_CREDENTIALS },
    });
    expect([refused.statusCode, refused.json().code]).toEqual([400, "invalid_body"]);
    expect(refused.json().detail).toContain("must not carry a user name or password");
    expect(refused.body).not.toContain(PASSWORD);
  });

  it("shows one stored before the rule without its password, in every listing and delivery error", async () => {
    const store = await openStore(database.location);
    try {
      const hook = await store.webhooks.createWebhook({
        url: WITH_CREDENTIALS,
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
      expect(event?.url).toBe("http://***@127.0.0.1:9/hook");
      await store.webhooks.finishAttempt(
        event?.id as string,
        "cli-test",
        {
          attempt: 1,
          at: now,
          statusCode: null,
          error: `Request cannot be constructed from a URL that includes credentials: ${WITH_CREDENTIALS}`,
          durationMs: 1,
        },
        { status: "pending", nextAttemptAt: new Date(now.getTime() + 10_000) },
      );
      await store.lists.recordAttempt(
        "mylist",
        `https://bob:${PASSWORD}@lists.test/a.txt`,
        now,
        "status 401",
      );
      for (const args of [["list"], ["list", "--json"], ["deliveries"], ["deliveries", "--json"]]) {
        const shown = await cli(webhooks, ...args);
        expect(shown.code, args.join(" ")).toBe(0);
        expect(shown.stdout).not.toContain(PASSWORD);
      }
      expect((await cli(webhooks, "list")).stdout).toContain("http://***@127.0.0.1:9/hook");
      expect((await cli(webhooks, "deliveries")).stdout).toContain("http://***@127.0.0.1:9/hook");
      const status = await cli(lists, "status", "--json");
      expect(status.code).toBe(0);
      expect(status.stdout).toContain("https://***@lists.test/a.txt");
      expect(status.stdout).not.toContain(PASSWORD);
      expect(hook.id).toMatch(/^wh_/);
    } finally {
      await store.close();
    }
  });
});
