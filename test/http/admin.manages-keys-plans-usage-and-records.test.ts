import type { InjectOptions } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mxFacts } from "../../harness/sample-facts.js";
import { directCheck, type HttpFixture, openHttpFixture, START } from "./helpers.js";

const TOKEN = "admin-token-for-tests-0123456789abcdef";
const DAY = 86_400_000;

let fixture: HttpFixture;
beforeEach(async () => {
  fixture = await openHttpFixture({ adminToken: TOKEN });
});
afterEach(() => fixture.close());

/** With the token as `Bearer <token>`, or `authorization` as given when it is an object. */
const admin = (options: InjectOptions, token: string | null | { authorization: string } = TOKEN) =>
  fixture.app.inject({
    ...options,
    headers: {
      ...options.headers,
      ...(token === null ? {} : typeof token === "object" ? token : { authorization: `Bearer ${token}` }),
    },
  });
const check = (secret: string) => directCheck(fixture, secret);

function problemCode(response: { headers: Record<string, unknown>; json(): { code: string } }): string {
  expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
  return response.json().code;
}

describe("admin token", () => {
  it.each([
    ["no Authorization header", null, "missing_admin_token"],
    ["a wrong token of the same length", TOKEN.replace(/.$/, "X"), "invalid_admin_token"],
    ["a shorter token", "short", "invalid_admin_token"],
    ["an empty Bearer", "", "missing_admin_token"],
    ["another scheme (Basic)", { authorization: `Basic ${btoa(`admin:${TOKEN}`)}` }, "wrong_auth_scheme"],
  ])("refuses %s with 401", async (_, token, code) => {
    for (const options of [
      { method: "GET", url: "/admin/keys" },
      { method: "POST", url: "/admin/plans", payload: { name: "x", quota: 1 } },
      { method: "POST", url: "/admin/records/purge", payload: { all: true } },
    ] as InjectOptions[]) {
      const response = await admin(options, token);
      expect(response.statusCode).toBe(401);
      expect(problemCode(response)).toBe(code);
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm="mailrisk-admin"/);
    }
    expect(await fixture.store.plans.getPlan("x")).toBeUndefined();
  });

  it("does not take an API key as the admin token", async () => {
    const { secret } = await fixture.newKey();
    expect((await admin({ method: "GET", url: "/admin/keys" }, secret)).statusCode).toBe(401);
  });

  it("is not served without ADMIN_TOKEN: every /admin/ path is a 404", async () => {
    const plain = await openHttpFixture();
    try {
      for (const url of ["/admin/keys", "/admin/plans", "/admin/records/purge"]) {
        const response = await plain.app.inject({
          method: "GET",
          url,
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(response.statusCode).toBe(404);
        expect(response.json().code).toBe("not_found");
      }
      const doc = (await plain.app.inject({ url: "/openapi.json" })).json();
      expect(Object.keys(doc.paths).filter((path) => path.startsWith("/admin"))).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});

describe("admin keys", () => {
  it("creates a key whose secret works, lists it without secret, and revokes it", async () => {
    const created = await admin({
      method: "POST",
      url: "/admin/keys",
      payload: { plan: "free", name: "shop" },
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(Object.keys(body)).toEqual([
      "id",
      "key",
      "plan",
      "prefix",
      "name",
      "created_at",
      "publishable",
      "origins",
    ]);
    expect(body).toMatchObject({ plan: "free", name: "shop", created_at: "2025-01-01T00:00:00+00:00" });
    expect((await check(body.key)).statusCode).toBe(200);

    const listed = await admin({ method: "GET", url: "/admin/keys" });
    expect(listed.json()).toEqual([
      {
        id: body.id,
        prefix: body.prefix,
        name: "shop",
        plan: "free",
        created_at: "2025-01-01T00:00:00+00:00",
        revoked_at: null,
        publishable: false,
        origins: [],
      },
    ]);
    expect(listed.body).not.toContain(body.key);

    const revoked = await admin({ method: "POST", url: `/admin/keys/${body.id}/revoke` });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().revoked_at).toBe("2025-01-01T00:00:00+00:00");
    expect((await check(body.key)).statusCode).toBe(401);
  });

  it("answers unknown keys and plans with 404 and a bad body with 400", async () => {
    expect(problemCode(await admin({ method: "POST", url: "/admin/keys", payload: { plan: "gold" } }))).toBe(
      "unknown_plan",
    );
    expect(problemCode(await admin({ method: "GET", url: "/admin/keys/key_nope" }))).toBe("unknown_key");
    expect(problemCode(await admin({ method: "POST", url: "/admin/keys/key_nope/revoke" }))).toBe(
      "unknown_key",
    );
    const move = await admin({ method: "PATCH", url: "/admin/keys/key_nope", payload: { plan: "free" } });
    expect(move.statusCode).toBe(404);
    const bad = await admin({ method: "POST", url: "/admin/keys", payload: { name: "no plan" } });
    expect(bad.statusCode).toBe(400);
    expect(problemCode(bad)).toBe("invalid_body");
    expect(bad.json().detail).toMatch(/plan/);
  });

  it("moves a key to another plan, which its next request counts against at once", async () => {
    const { id, secret } = await fixture.newKey({ quota: 2 });
    await check(secret);
    await check(secret);
    expect((await check(secret)).statusCode).toBe(429);

    const moved = await admin({ method: "PATCH", url: `/admin/keys/${id}`, payload: { plan: "free" } });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ id, plan: "free" });
    const after = await check(secret);
    expect(after.statusCode).toBe(200);
    expect(after.headers["x-ratelimit-requests-limit"]).toBe("1000");
    expect(after.headers["x-ratelimit-requests-remaining"]).toBe("997");

    const unknown = await admin({ method: "PATCH", url: `/admin/keys/${id}`, payload: { plan: "gold" } });
    expect(problemCode(unknown)).toBe("unknown_plan");
  });

  it("shows a key's usage, current period and stored ones, without counting", async () => {
    const { id, secret } = await fixture.newKey({ quota: 10, periodDays: 30 });
    await check(secret);
    fixture.clock.set(new Date(START.getTime() + 31 * DAY));
    await check(secret);
    await check(secret);
    for (let i = 0; i < 2; i++) {
      const shown = await admin({ method: "GET", url: `/admin/keys/${id}` });
      expect(shown.statusCode).toBe(200);
      expect(shown.json()).toMatchObject({
        id,
        plan: "test-10-30",
        usage: {
          limit: 10,
          used: 2,
          remaining: 8,
          period_start: "2025-01-31T00:00:00+00:00",
          reset_at: "2025-03-02T00:00:00+00:00",
          periods: [
            { period_start: "2025-01-31T00:00:00+00:00", used: 2 },
            { period_start: "2025-01-01T00:00:00+00:00", used: 1 },
          ],
        },
      });
    }
  });
});

describe("admin plans", () => {
  it("lists the built-in plans, creates one (also unlimited) and refuses a duplicate with 409", async () => {
    expect((await admin({ method: "GET", url: "/admin/plans" })).json()).toEqual([
      { name: "free", quota: 1000, period_days: 30 },
      { name: "unlimited", quota: null, period_days: 30 },
    ]);
    const created = await admin({
      method: "POST",
      url: "/admin/plans",
      payload: { name: "pro", quota: 50_000 },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ name: "pro", quota: 50_000, period_days: 30 });
    const open = await admin({
      method: "POST",
      url: "/admin/plans",
      payload: { name: "partner", quota: null, period_days: 7 },
    });
    expect(open.json()).toEqual({ name: "partner", quota: null, period_days: 7 });
    const again = await admin({ method: "POST", url: "/admin/plans", payload: { name: "pro", quota: 1 } });
    expect(again.statusCode).toBe(409);
    expect(problemCode(again)).toBe("plan_exists");
    const invalid = await admin({ method: "POST", url: "/admin/plans", payload: { name: "Pro!", quota: 1 } });
    expect(problemCode(invalid)).toBe("invalid_plan");
  });

  it("updates a plan's quota and period; its keys count against the new quota at once", async () => {
    const { secret } = await fixture.newKey({ quota: 1, periodDays: 30 });
    await check(secret);
    expect((await check(secret)).statusCode).toBe(429);
    const updated = await admin({ method: "PATCH", url: "/admin/plans/test-1-30", payload: { quota: 5 } });
    expect(updated.json()).toEqual({ name: "test-1-30", quota: 5, period_days: 30 });
    expect((await check(secret)).headers["x-ratelimit-requests-remaining"]).toBe("3");

    const unlimited = await admin({
      method: "PATCH",
      url: "/admin/plans/test-1-30",
      payload: { quota: null },
    });
    expect(unlimited.json().quota).toBeNull();
    expect((await check(secret)).headers["x-ratelimit-requests-limit"]).toBe("2147483647");

    expect(
      problemCode(await admin({ method: "PATCH", url: "/admin/plans/gold", payload: { quota: 5 } })),
    ).toBe("unknown_plan");
    const negative = await admin({ method: "PATCH", url: "/admin/plans/free", payload: { quota: -1 } });
    expect(negative.statusCode).toBe(400);
  });
});

describe("admin records", () => {
  it("purges the named domains (normalised) or all records, so the next check is fresh", async () => {
    const now = fixture.clock.now();
    for (const domain of ["example.com", "xn--mnchen-3ya.de", "other.org"]) {
      await fixture.store.records.saveFacts(domain, mxFacts(domain), now, false);
    }
    const named = await admin({
      method: "POST",
      url: "/admin/records/purge",
      payload: { domains: ["Example.COM.", "münchen.de", "never-checked.net"] },
    });
    expect(named.json()).toEqual({ purged: 2 });
    expect(await fixture.store.records.getFacts("example.com")).toBeUndefined();
    expect(await fixture.store.records.getFacts("other.org")).toBeDefined();

    expect(
      (await admin({ method: "POST", url: "/admin/records/purge", payload: { all: true } })).json(),
    ).toEqual({
      purged: 1,
    });
    expect(await fixture.store.records.getFacts("other.org")).toBeUndefined();
  });

  it("refuses a body with neither or both, and a value that is not a domain", async () => {
    for (const payload of [{}, { all: true, domains: ["a.com"] }, { all: false }]) {
      const response = await admin({ method: "POST", url: "/admin/records/purge", payload });
      expect(response.statusCode).toBe(400);
      expect(problemCode(response)).toBe("invalid_body");
    }
    const bad = await admin({
      method: "POST",
      url: "/admin/records/purge",
      payload: { domains: ["1.2.3.4"] },
    });
    expect(problemCode(bad)).toBe("invalid_domain");
  });
});

it("describes every admin route in /openapi.json with the admin token scheme", async () => {
  const doc = (await fixture.app.inject({ url: "/openapi.json" })).json();
  expect(
    Object.keys(doc.paths)
      .filter((path) => path.startsWith("/admin"))
      .sort(),
  ).toEqual([
    "/admin/accounts",
    "/admin/accounts/invite",
    "/admin/accounts/{account}",
    "/admin/accounts/{account}/reset-2fa",
    "/admin/accounts/{account}/reset-password",
    "/admin/accounts/{account}/resume",
    "/admin/accounts/{account}/suspend",
    "/admin/audit",
    "/admin/jobs",
    "/admin/jobs/{id}",
    "/admin/jobs/{id}/cancel",
    "/admin/keys",
    "/admin/keys/{id}",
    "/admin/keys/{id}/origins",
    "/admin/keys/{id}/revoke",
    "/admin/lists",
    "/admin/lists/remove",
    "/admin/lists/rollback",
    "/admin/lists/update",
    "/admin/overrides",
    "/admin/overrides/remove",
    "/admin/plans",
    "/admin/plans/{name}",
    "/admin/records/purge",
    "/admin/reports",
    "/admin/reports/{id}/accept",
    "/admin/reports/{id}/reject",
    "/admin/stats",
    "/admin/webhooks",
    "/admin/webhooks/deliveries",
    "/admin/webhooks/{id}",
  ]);
  expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: "http", scheme: "bearer" });
  const stats = doc.paths["/admin/stats"].get;
  expect(stats.security).toEqual([{ adminToken: [] }]);
  expect(Object.keys(stats.responses["200"].content["application/json"].schema.properties)).toEqual([
    "from",
    "to",
    "days",
    "totals",
    "top_disposable_providers",
    "top_blocked_domains",
    "top_accounts",
    "top_keys",
  ]);
  const patch = doc.paths["/admin/keys/{id}"].patch;
  expect(patch.security).toEqual([{ adminToken: [] }]);
  expect(Object.keys(patch.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404", "503"]));
  expect(doc.paths["/v2/usage"].get.security).toEqual([{ bearerKey: [] }]);
});
