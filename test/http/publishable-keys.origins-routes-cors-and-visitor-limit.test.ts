/**
 * Publishable keys over HTTP (docs/security.md, "Publishable keys"; docs/api.md "Publishable keys and CORS"): only
 * `GET /` and `POST /v2/`, only from their origins, a per-visitor limit before the quota,
 * and CORS headers for them alone. On both databases, through `inject`.
 */
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../harness/databases.js";
import { type FixtureOptions, type HttpFixture, openHttpFixture } from "./helpers.js";

const SHOP = "https://shop.example";
const OTHER = "https://other.example";
const ADMIN_TOKEN = "admin-token-for-tests-0123456789abcdef";
const METRICS_TOKEN = "metrics-token-0123456789abcdefghijklmnop";

/** The answer's problem code (and that it is problem JSON). */
function code(response: LightMyRequestResponse): string {
  expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
  return response.json().code;
}

function corsHeaders(response: LightMyRequestResponse) {
  return Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => name.startsWith("access-control-")),
  );
}

describe.each(DATABASE_KINDS)("publishable keys on %s", (kind) => {
  let fixture: HttpFixture;
  afterEach(() => fixture.close());
  const open = async (options: FixtureOptions = {}) => {
    fixture = await openHttpFixture({ kind, adminToken: ADMIN_TOKEN, ...options });
    return fixture;
  };
  const used = async (id: string) =>
    (await fixture.store.usage.keyUsage(id, fixture.clock.now()))?.current.used;

  /** `GET /` with the key in X-Gateway-Key, or `POST /v2/` with it as a Bearer token. */
  const checks = {
    gateway: (secret: string, headers: Record<string, string> = {}, remoteAddress?: string) =>
      fixture.app.inject({
        method: "GET",
        url: "/?domain=example.com",
        headers: { "x-gateway-key": secret, ...headers },
        ...(remoteAddress ? { remoteAddress } : {}),
      }),
    direct: (secret: string, headers: Record<string, string> = {}, remoteAddress?: string) =>
      fixture.app.inject({
        method: "POST",
        url: "/v2/",
        headers: { authorization: `Bearer ${secret}`, ...headers },
        payload: { domain: "example.com" },
        ...(remoteAddress ? { remoteAddress } : {}),
      }),
  };

  describe.each(Object.keys(checks) as (keyof typeof checks)[])("on the %s route", (route) => {
    const check = (...args: Parameters<(typeof checks)["gateway"]>) => checks[route](...args);

    it("answers a page of one of its origins, with CORS headers naming it", async () => {
      await open();
      const { id, secret } = await fixture.newKey({ origins: [SHOP, "http://127.0.0.2:3000"] });
      for (const origin of [SHOP, "HTTPS://Shop.Example:443", "http://127.0.0.2:3000"]) {
        const response = await check(secret, { origin });
        expect(response.statusCode).toBe(200);
        expect(response.json().domain).toBe("example.com");
        expect(response.headers["access-control-allow-origin"]).toBe(new URL(origin).origin);
        expect(response.headers.vary).toMatch(/\bOrigin\b/);
        expect(response.headers["access-control-expose-headers"]).toMatch(
          /\bx-ratelimit-requests-remaining\b/,
        );
        expect(response.headers["access-control-expose-headers"]).toMatch(/\bretry-after\b/);
      }
      expect(await used(id)).toBe(3);
    });

    it("refuses a missing or another Origin with 403 origin_not_allowed, counting nothing", async () => {
      await open();
      const { id, secret } = await fixture.newKey({ origins: [SHOP] });
      const sent: Record<string, string>[] = [
        {},
        { origin: OTHER },
        { origin: "null" },
        { origin: `${SHOP}.evil.example` },
      ];
      for (const headers of sent) {
        const response = await check(secret, headers);
        expect([response.statusCode, code(response)]).toEqual([403, "origin_not_allowed"]);
        expect(corsHeaders(response)).toEqual({});
        expect(response.headers["x-ratelimit-requests-remaining"]).toBeUndefined();
      }
      expect(await used(id)).toBe(0);
    });

    it("refuses an unknown or revoked publishable key with 401", async () => {
      await open();
      const { id, secret } = await fixture.newKey({ origins: [SHOP] });
      const unknown = await check(`mrp_${"x".repeat(32)}`, { origin: SHOP });
      expect([unknown.statusCode, code(unknown)]).toEqual([401, "invalid_api_key"]);
      await fixture.store.keys.revokeKey(id, fixture.clock.now());
      fixture.store.forgetKeys();
      const revoked = await check(secret, { origin: SHOP });
      expect([revoked.statusCode, code(revoked)]).toEqual([401, "invalid_api_key"]);
    });

    it("gives a secret key no CORS headers, whatever its Origin", async () => {
      await open();
      await fixture.newKey({ origins: [SHOP] });
      const { secret } = await fixture.newKey();
      const response = await check(secret, { origin: SHOP });
      expect(response.statusCode).toBe(200);
      expect(corsHeaders(response)).toEqual({});
      expect(response.headers.vary ?? "").not.toMatch(/Origin/);
    });

    it("limits each visitor per key, then counts the quota as well", async () => {
      await open({ publishableRateLimit: 3 });
      const { id, secret } = await fixture.newKey({ origins: [SHOP], quota: 5 });
      const from = (address: string) => check(secret, { origin: SHOP }, address);
      for (let i = 0; i < 3; i++) expect((await from("10.0.0.1")).statusCode).toBe(200);
      const limited = await from("10.0.0.1");
      expect([limited.statusCode, code(limited)]).toEqual([429, "rate_limited"]);
      expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(60);
      // The page can read why it was refused.
      expect(limited.headers["access-control-allow-origin"]).toBe(SHOP);
      expect(await used(id)).toBe(3);

      // Another visitor has a limit of its own, and the plan's quota holds for all of them.
      expect((await from("10.0.0.2")).statusCode).toBe(200);
      expect((await from("10.0.0.2")).statusCode).toBe(200);
      const overQuota = await from("10.0.0.3");
      expect([overQuota.statusCode, code(overQuota)]).toEqual([429, "quota_exceeded"]);
      expect(overQuota.headers["x-ratelimit-requests-remaining"]).toBe("0");
      expect(overQuota.headers["access-control-allow-origin"]).toBe(SHOP);
      expect(await used(id)).toBe(5);
    });

    it("counts the client behind a trusted proxy (TRUST_PROXY), not the proxy", async () => {
      await open({ publishableRateLimit: 2, trustProxy: 1 });
      const { secret } = await fixture.newKey({ origins: [SHOP] });
      const via = (client: string) => check(secret, { origin: SHOP, "x-forwarded-for": client }, "10.9.9.9");
      expect([(await via("198.51.100.1")).statusCode, (await via("198.51.100.1")).statusCode]).toEqual([
        200, 200,
      ]);
      expect((await via("198.51.100.1")).statusCode).toBe(429);
      expect((await via("198.51.100.2")).statusCode).toBe(200);
    });
  });

  it("refuses a publishable key on every other route with 403 publishable_key_not_allowed, counting nothing", async () => {
    await open({ metricsRoute: { token: METRICS_TOKEN } });
    const { id, secret } = await fixture.newKey({ origins: [SHOP] });
    const bearer = { authorization: `Bearer ${secret}`, origin: SHOP };
    const requests: InjectOptions[] = [
      { method: "POST", url: "/v2/bulk", headers: bearer, payload: { items: ["example.com"] } },
      { method: "GET", url: "/v2/usage", headers: bearer },
      {
        method: "POST",
        url: "/v2/reports",
        headers: bearer,
        payload: { domain: "example.com", expected: "block" },
      },
      { method: "GET", url: "/v2/reports/rpt_abcdefghijkm", headers: bearer },
      { method: "GET", url: "/admin/keys", headers: bearer },
      { method: "POST", url: "/admin/plans", headers: bearer, payload: { name: "mine", quota: null } },
      { method: "GET", url: "/metrics", headers: bearer },
      {
        method: "GET",
        url: "/v2/usage",
        headers: { authorization: `Bearer ${Buffer.from(secret).toString("base64")}` },
      },
    ];
    for (const request of requests) {
      const response = await fixture.app.inject(request);
      expect([request.url, response.statusCode, code(response)]).toEqual([
        request.url,
        403,
        "publishable_key_not_allowed",
      ]);
      expect(corsHeaders(response)).toEqual({});
    }
    expect(await used(id)).toBe(0);
    expect(await fixture.store.plans.getPlan("mine")).toBeUndefined();
  });

  it("refuses a publishable key on the admin API and the metrics with 403 even where they are not served", async () => {
    await open({ adminToken: undefined });
    const { secret } = await fixture.newKey({ origins: [SHOP] });
    for (const url of ["/admin/keys", "/admin", "/metrics", "/metrics?x=1"]) {
      const response = await fixture.app.inject({
        url,
        headers: { authorization: `Bearer ${secret}`, origin: SHOP },
      });
      expect([url, response.statusCode, code(response)]).toEqual([url, 403, "publishable_key_not_allowed"]);
    }
    const elsewhere = await fixture.app.inject({
      url: "/administrator",
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(elsewhere.statusCode).toBe(404);
    expect((await fixture.app.inject({ url: "/metrics" })).statusCode).toBe(404);
  });

  describe("the preflight", () => {
    const preflight = (url: string, origin?: string) =>
      fixture.app.inject({
        method: "OPTIONS",
        url,
        headers: {
          ...(origin ? { origin } : {}),
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type",
        },
      });

    it("allows an origin some live publishable key lists, on both routes", async () => {
      await open();
      await fixture.newKey({ origins: [SHOP] });
      for (const url of ["/", "/v2/", "/v2"]) {
        const response = await preflight(url, SHOP);
        expect(response.statusCode).toBe(204);
        expect(corsHeaders(response)).toEqual({
          "access-control-allow-origin": SHOP,
          "access-control-allow-methods": "GET, POST",
          "access-control-allow-headers": "content-type, authorization, x-gateway-key",
          "access-control-max-age": "600",
        });
        expect(response.headers.vary).toBe("Origin");
      }
    });

    it("gives other origins, no origin, and a secret key's origin nothing", async () => {
      await open();
      await fixture.newKey({ origins: [SHOP] });
      for (const origin of [OTHER, undefined, "null", `${SHOP}/`.replace("https", "http")]) {
        const response = await preflight("/v2/", origin);
        expect(response.statusCode).toBe(204);
        expect(corsHeaders(response)).toEqual({});
      }
      const bulk = await preflight("/v2/bulk", SHOP);
      expect(bulk.statusCode).toBe(405);
      expect(corsHeaders(bulk)).toEqual({});
    });

    it("follows set-origins and revocation once the keys are taken again", async () => {
      await open();
      const { id } = await fixture.newKey({ origins: [SHOP] });
      await fixture.store.keys.setKeyOrigins(id, [OTHER]);
      fixture.store.forgetKeys();
      expect(corsHeaders(await preflight("/", SHOP))).toEqual({});
      expect((await preflight("/", OTHER)).headers["access-control-allow-origin"]).toBe(OTHER);
      await fixture.store.keys.revokeKey(id, fixture.clock.now());
      fixture.store.forgetKeys();
      expect(corsHeaders(await preflight("/", OTHER))).toEqual({});
    });
  });

  describe("the admin API", () => {
    const admin = (options: InjectOptions) =>
      fixture.app.inject({
        ...options,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...options.headers },
      });

    it("creates a publishable key that works from its origin, and replaces its origins at once", async () => {
      await open();
      const created = await admin({
        method: "POST",
        url: "/admin/keys",
        payload: { plan: "free", publishable: true, origins: ["https://Shop.Example/"] },
      });
      expect(created.statusCode).toBe(201);
      const body = created.json();
      expect(body).toMatchObject({ key: expect.stringMatching(/^mrp_/), publishable: true, origins: [SHOP] });
      expect((await checks.gateway(body.key, { origin: SHOP })).statusCode).toBe(200);

      const moved = await admin({
        method: "PUT",
        url: `/admin/keys/${body.id}/origins`,
        payload: { origins: [OTHER] },
      });
      expect(moved.statusCode).toBe(200);
      expect(moved.json()).toMatchObject({ id: body.id, publishable: true, origins: [OTHER] });
      expect(code(await checks.gateway(body.key, { origin: SHOP }))).toBe("origin_not_allowed");
      expect((await checks.gateway(body.key, { origin: OTHER })).statusCode).toBe(200);
      expect((await admin({ method: "GET", url: `/admin/keys/${body.id}` })).json()).toMatchObject({
        publishable: true,
        origins: [OTHER],
      });
    });

    it("refuses wildcards, paths, no origins and a secret key's origins with 400 invalid_origins", async () => {
      await open();
      for (const payload of [
        { plan: "free", publishable: true, origins: ["*"] },
        { plan: "free", publishable: true, origins: ["https://shop.example/signup"] },
        { plan: "free", publishable: true },
        { plan: "free", origins: [SHOP] },
      ]) {
        const response = await admin({ method: "POST", url: "/admin/keys", payload });
        expect([response.statusCode, code(response)]).toEqual([400, "invalid_origins"]);
      }
      expect(await fixture.store.keys.countKeys()).toBe(0);

      const secret = (await admin({ method: "POST", url: "/admin/keys", payload: { plan: "free" } })).json();
      expect(secret).toMatchObject({ key: expect.stringMatching(/^mr_/), publishable: false, origins: [] });
      const refused = await admin({
        method: "PUT",
        url: `/admin/keys/${secret.id}/origins`,
        payload: { origins: [SHOP] },
      });
      expect([refused.statusCode, code(refused)]).toEqual([400, "invalid_origins"]);
      const unknown = await admin({
        method: "PUT",
        url: "/admin/keys/key_nope/origins",
        payload: { origins: [SHOP] },
      });
      expect([unknown.statusCode, code(unknown)]).toEqual([404, "unknown_key"]);
    });
  });
});
