/** `/admin/webhooks` (docs/api.md "Administration"): add (a generated secret answered once), list, deliveries, remove; checked input. */
import type { InjectOptions } from "fastify";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

const TOKEN = "w".repeat(40);
let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await openHttpFixture({ adminToken: TOKEN });
});
afterEach(() => fixture.close());

const admin = (options: InjectOptions, token = TOKEN) =>
  fixture.app.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${token}` } });

it("adds, lists without secrets, shows deliveries and removes", async () => {
  const created = await admin({
    method: "POST",
    url: "/admin/webhooks",
    payload: { url: "https://hooks.example.com/in" },
  });
  expect(created.statusCode).toBe(201);
  const body = created.json();
  expect(body).toEqual({
    id: expect.stringMatching(/^wh_/),
    url: "https://hooks.example.com/in",
    events: ["domain.blocked", "domain.unblocked"],
    created_at: expect.any(String),
    secret: expect.stringMatching(/^[0-9a-f]{64}$/),
  });
  const given = await admin({
    method: "POST",
    url: "/admin/webhooks",
    payload: { url: "http://127.0.0.1:9/", events: ["domain.blocked"], secret: "0123456789abcdef" },
  });
  expect(given.statusCode).toBe(201);
  expect(given.json().secret).toBeUndefined();
  const listed = await admin({ method: "GET", url: "/admin/webhooks" });
  expect(
    listed
      .json()
      .map((w: { url: string }) => w.url)
      .sort(),
  ).toEqual(["http://127.0.0.1:9/", "https://hooks.example.com/in"]);
  expect(listed.body).not.toContain(body.secret);
  const deliveries = await admin({ method: "GET", url: `/admin/webhooks/deliveries?webhook=${body.id}` });
  expect(deliveries.statusCode).toBe(200);
  expect(deliveries.json()).toEqual([]);
  // Query strings hold text: a limit is taken as digits, and one out of range is a 400.
  expect((await admin({ method: "GET", url: "/admin/webhooks/deliveries?limit=5" })).statusCode).toBe(200);
  for (const limit of ["0", "1001", "five", "-1"]) {
    const refused = await admin({ method: "GET", url: `/admin/webhooks/deliveries?limit=${limit}` });
    expect(refused.statusCode, limit).toBe(400);
  }
  expect((await admin({ method: "DELETE", url: `/admin/webhooks/${body.id}` })).json()).toEqual({
    removed: true,
  });
  expect((await admin({ method: "DELETE", url: `/admin/webhooks/${body.id}` })).json()).toEqual({
    removed: false,
  });
  expect((await admin({ method: "GET", url: "/admin/webhooks" })).json()).toHaveLength(1);
});

it("refuses other schemes, unknown events and short secrets with invalid_body, and a missing token with 401", async () => {
  for (const payload of [
    { url: "file:///etc/passwd" },
    { url: "https://example.com/", events: ["domain.deleted"] },
    { url: "https://example.com/", secret: "short" },
    { url: "https://example.com/", events: [] },
  ]) {
    const refused = await admin({ method: "POST", url: "/admin/webhooks", payload });
    expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
    expect(refused.json()).toMatchObject({ code: "invalid_body" });
  }
  expect((await fixture.app.inject({ method: "GET", url: "/admin/webhooks" })).statusCode).toBe(401);
});
