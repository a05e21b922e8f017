/** `/admin/lists` (docs/api.md "Administration"): each synced source's state, a sync now, a rollback, a removal; admin token required. */
import type { InjectOptions } from "fastify";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type ListServer, madeUpList, startListServer } from "../../harness/list-server.js";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

const TOKEN = "l".repeat(40);
let server: ListServer;
let fixture: HttpFixture;

beforeEach(async () => {
  server = await startListServer();
  fixture = await openHttpFixture({
    adminToken: TOKEN,
    listSources: [{ name: "up", url: `${server.url}/up.txt` }],
  });
});
afterEach(async () => {
  await fixture.close();
  await server.close();
});

const admin = (options: InjectOptions, token = TOKEN) =>
  fixture.app.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${token}` } });

it("syncs now, shows the state, and rolls back", async () => {
  server.publish("/up.txt", { body: `${madeUpList(5)}co.uk\n` });
  const update = await admin({ method: "POST", url: "/admin/lists/update" });
  expect(update.statusCode).toBe(200);
  expect(update.json()).toEqual({
    ran: true,
    sources: [
      {
        source: "up",
        url: `${server.url}/up.txt`,
        outcome: "accepted",
        reason: null,
        entries: 5,
        added: 5,
        removed: 0,
        refused: [{ entry: "co.uk", reason: expect.stringMatching(/^a public suffix/) }],
      },
    ],
  });
  const [state] = (await admin({ method: "GET", url: "/admin/lists" })).json();
  expect(state).toMatchObject({
    source: "up",
    configured: true,
    in_policy: true,
    last_error: null,
    previous: null,
  });
  expect(state.in_force).toMatchObject({ entries: 5 });

  const none = await admin({ method: "POST", url: "/admin/lists/rollback", payload: {} });
  expect(none.statusCode).toBe(400);
  expect(none.json()).toMatchObject({ code: "invalid_body" });
  const unknown = await admin({
    method: "POST",
    url: "/admin/lists/rollback",
    payload: { source: "nosuch" },
  });
  expect([unknown.statusCode, unknown.json().code]).toEqual([404, "unknown_source"]);
  expect(unknown.json().detail).toContain('Unknown source "nosuch"');
  server.publish("/up.txt", { body: madeUpList(6) });
  await admin({ method: "POST", url: "/admin/lists/update" });
  const rolled = await admin({ method: "POST", url: "/admin/lists/rollback", payload: { source: "up" } });
  expect(rolled.json()).toEqual({ rolled_back: ["up"] });
  expect((await admin({ method: "GET", url: "/admin/lists" })).json()[0].in_force.entries).toBe(5);
});

it("removes a source's stored versions, 404 unknown_source for one without any", async () => {
  server.publish("/up.txt", { body: madeUpList(5) });
  await admin({ method: "POST", url: "/admin/lists/update" });
  const removed = await admin({ method: "POST", url: "/admin/lists/remove", payload: { source: "up" } });
  expect([removed.statusCode, removed.json()]).toEqual([200, { removed: "up" }]);
  expect((await admin({ method: "GET", url: "/admin/lists" })).json()[0]).toMatchObject({
    last_attempt: null,
    in_force: null,
  });
  const unknown = await admin({ method: "POST", url: "/admin/lists/remove", payload: { source: "up" } });
  expect([unknown.statusCode, unknown.json().code]).toEqual([404, "unknown_source"]);
  const bad = await admin({ method: "POST", url: "/admin/lists/remove", payload: {} });
  expect([bad.statusCode, bad.json().code]).toEqual([400, "invalid_body"]);
});

it("stays ready when a sync fails: stale lists are not unready", async () => {
  server.publish("/up.txt", { body: "down", status: 503 });
  const update = await admin({ method: "POST", url: "/admin/lists/update" });
  expect(update.json().sources[0]).toMatchObject({ outcome: "failed", reason: "answered HTTP 503" });
  expect((await fixture.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
});

it("refuses a missing token", async () => {
  expect((await admin({ method: "POST", url: "/admin/lists/update" }, "w".repeat(40))).statusCode).toBe(401);
  expect(server.hits("/up.txt")).toBe(0);
});
