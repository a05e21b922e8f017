/**
 * `mailrisk lists update|status|rollback` against a loopback list server: what update
 * prints per source and its exit codes (0 every source read, 1 a source failed or
 * another process syncs, 2 usage) and the list policy it sets, status as a table and as
 * JSON, rollback.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { type ListServer, madeUpList, startListServer } from "../../harness/list-server.js";
import { run } from "../../src/cli/lists-command.js";
import { openStore } from "../../src/store/index.js";

let database: TestDatabase;
let server: ListServer;

beforeEach(async () => {
  database = await createTestDatabase("sqlite");
  server = await startListServer();
});
afterEach(async () => {
  await server.close();
  await database.drop();
});

async function lists(...args: string[]) {
  const sources = `good=${server.url}/good.txt,broken=${server.url}/broken.txt`;
  const cli = createTestCli(database.url, "", { LIST_SOURCES: sources });
  const code = await run(args, cli.ctx);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

it("syncs, reports per source, exits 1 when a source failed and applies the others", async () => {
  server.publish("/good.txt", { body: `${madeUpList(12)}gmail.com\n` });
  server.publish("/broken.txt", { body: "no", status: 500 });
  const { code, stdout } = await lists("update");
  expect(code).toBe(1);
  expect(stdout).toContain("good: accepted; 12 entries in force, 12 added, 0 removed, 1 refused");
  expect(stdout).toContain("  refused gmail.com: a known-good domain");
  expect(stdout).toContain("broken: failed (answered HTTP 500); 0 entries in force");
  expect(stdout).toContain("Running servers take it within a second.");

  server.publish("/broken.txt", { body: madeUpList(3, "other") });
  const json = await lists("update", "--json");
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toMatchObject({
    ran: true,
    sources: [
      { source: "good", outcome: "unchanged", entries: 12 },
      { source: "broken", outcome: "accepted", entries: 3, added: 3 },
    ],
  });
});

it("shows each source's state, as a table and as JSON", async () => {
  server.publish("/good.txt", { body: madeUpList(12) });
  server.publish("/broken.txt", { silent: true });
  const status = await lists("status", "--json");
  expect(JSON.parse(status.stdout)).toEqual([
    expect.objectContaining({
      source: "good",
      configured: true,
      in_policy: null,
      last_attempt: null,
      in_force: null,
    }),
    expect.objectContaining({
      source: "broken",
      configured: true,
      in_policy: null,
      last_attempt: null,
      in_force: null,
    }),
  ]);
  expect((await lists("status")).stdout).toMatch(
    /^No list policy yet: each process decides with its own LIST_SOURCES/m,
  );
  server.publish("/broken.txt", { body: "x", status: 404 });
  await lists("update");
  const [good, broken] = JSON.parse((await lists("status", "--json")).stdout);
  expect(good).toMatchObject({ url: `${server.url}/good.txt`, last_error: null, age_seconds: 0 });
  expect(good.in_force).toMatchObject({ entries: 12, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  expect(broken).toMatchObject({ last_success: null, last_error: "answered HTTP 404", in_force: null });
  const table = (await lists("status")).stdout;
  expect(table).toMatch(/^SOURCE +ENTRIES +AGE +LAST SUCCESS +LAST ERROR +URL$/m);
  expect(table).toMatch(/^good +12 +0 h /m);
  expect(table).toMatch(/^broken +bundled +- +never +answered HTTP 404 /m);
  expect(table).toMatch(/^In force everywhere \(the list policy\): broken, good\.$/m);
});

it("rolls back to the previous version, and says when there is none or the source is unknown", async () => {
  expect((await lists("rollback")).code).toBe(1);
  server.publish("/good.txt", { body: madeUpList(12) });
  server.publish("/broken.txt", { body: "x", status: 404 });
  await lists("update");
  server.publish("/good.txt", { body: madeUpList(12, "second") });
  await lists("update");
  const { code, stdout } = await lists("rollback", "good");
  expect([code, stdout]).toEqual([
    0,
    "Rolled back to the previous version: good. Running servers take it within a second.\n",
  ]);
  const store = await openStore(database.location);
  try {
    expect((await store.lists.currentVersion("good"))?.entries.has("throwaway-0.com")).toBe(true);
  } finally {
    await store.close();
  }
  expect((await lists("rollback", "good", "extra")).code).toBe(2);
  const unknown = await lists("rollback", "nosuch");
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toBe(
    'mailrisk: unknown source "nosuch": none of that name was ever synced (synced: broken, good)\n',
  );
});

it("says another process syncs, and exits 1", async () => {
  server.publish("/good.txt", { body: madeUpList(12) });
  const store = await openStore(database.location);
  try {
    await store.migrate();
    const now = new Date();
    await store.locks.tryLock("list-sync", "a server", now, new Date(now.getTime() + 60_000));
  } finally {
    await store.close();
  }
  const { code, stderr } = await lists("update");
  expect(code).toBe(1);
  expect(stderr).toContain("another process is syncing the lists");
  expect(server.hits("/good.txt")).toBe(0);
});

it("sets the list policy to its LIST_SOURCES, and with off to none", async () => {
  server.publish("/good.txt", { body: madeUpList(12) });
  server.publish("/broken.txt", { body: madeUpList(3, "other") });
  expect((await lists("update")).code).toBe(0);
  const off = createTestCli(database.url, "", { LIST_SOURCES: "off" });
  expect(await run(["update"], off.ctx)).toBe(0);
  expect(off.stdout()).toBe(
    "LIST_SOURCES is off: no synced list is in force now. Running servers take it within a second.\n",
  );
  const status = createTestCli(database.url, "", { LIST_SOURCES: "off" });
  expect(await run(["status", "--json"], status.ctx)).toBe(0);
  expect(JSON.parse(status.stdout())).toEqual([
    expect.objectContaining({ source: "broken", configured: false, in_policy: false }),
    expect.objectContaining({ source: "good", configured: false, in_policy: false }),
  ]);
  const store = await openStore(database.location);
  try {
    expect((await store.lists.policy())?.sources).toEqual([]);
    expect(await store.lists.currentVersion("good")).toBeDefined();
  } finally {
    await store.close();
  }
});
