/**
 * The security cases every checking route must pass (STYLE habit 11): one suite,
 * applied to `GET /` and `POST /v2/` by `checking-routes.refuse-bad-access-and-bodies.test.ts`,
 * and the 401 of every checking route.
 */
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

export interface CheckingRoute {
  name: string;
  /** A request of this route checking `input` (a domain), authenticated with `secret` when given. */
  request(secret: string | null, input: string): InjectOptions;
  /** How this route carries its key. */
  withKey(options: InjectOptions, secret: string): InjectOptions;
  /** The route's answer to an unsupported method, e.g. PUT. */
  wrongMethod: { method: InjectOptions["method"]; allow: string };
  /** Whether the route reads a body (and so answers 413/415/broken JSON). */
  readsBody: boolean;
  /** Whether a 401 carries `WWW-Authenticate`. */
  challenges: boolean;
}

function problem(response: LightMyRequestResponse) {
  expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
  const body = response.json();
  expect(Object.keys(body)).toEqual(["type", "title", "status", "detail", "code"]);
  expect(body.type).toBe("about:blank");
  expect(body.status).toBe(response.statusCode);
  return body as { title: string; status: number; detail: string; code: string };
}

function rateLimitHeaders(response: LightMyRequestResponse) {
  return Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => name.startsWith("x-ratelimit")),
  );
}

/** The answer carries no rate-limit header: it knows no key, so no quota to tell. */
function noRateLimit(response: LightMyRequestResponse) {
  expect(rateLimitHeaders(response)).toEqual({});
}

/** A 401 says no request is left, and nothing of a quota it does not know. */
function noneLeft(response: LightMyRequestResponse) {
  expect(rateLimitHeaders(response)).toEqual({ "x-ratelimit-requests-remaining": "0" });
}

function rateLimit(response: LightMyRequestResponse) {
  const header = (name: string) => {
    const value = response.headers[name];
    expect(value, `${name} on a ${response.statusCode}`).toMatch(/^\d+$/);
    return Number(value);
  };
  return {
    remaining: header("x-ratelimit-requests-remaining"),
    limit: header("x-ratelimit-requests-limit"),
    reset: header("x-ratelimit-requests-reset"),
  };
}

const OVERSIZED = "x".repeat(17 * 1024);

export function securitySuite(route: CheckingRoute): void {
  describe(`${route.name}: access and body security`, () => {
    let fixture: HttpFixture;
    beforeEach(async () => {
      fixture = await openHttpFixture();
    });
    afterEach(() => fixture.close());

    const send = (options: InjectOptions) => fixture.app.inject(options);

    it("answers a request without key with 401 missing_api_key and remaining 0", async () => {
      const response = await send(route.request(null, "example.com"));
      expect(response.statusCode).toBe(401);
      expect(problem(response).code).toBe("missing_api_key");
      noneLeft(response);
      if (route.challenges) expect(response.headers["www-authenticate"]).toBe('Bearer realm="mailrisk"');
      expect(fixture.checker.calls).toHaveLength(0);
    });

    it("answers a wrong key with 401 invalid_api_key", async () => {
      const response = await send(route.request("mr_notARealKey000000000000000000000", "example.com"));
      expect(response.statusCode).toBe(401);
      expect(problem(response).code).toBe("invalid_api_key");
      noneLeft(response);
      if (route.challenges) expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm="mailrisk"/);
    });

    if (route.challenges) {
      it("tells an empty Bearer (missing_api_key) from another scheme (wrong_auth_scheme)", async () => {
        const { secret } = await fixture.newKey();
        const cases: [string, string][] = [
          ["Bearer", "missing_api_key"],
          ["Bearer   ", "missing_api_key"],
          [`Basic ${btoa(`user:${secret}`)}`, "wrong_auth_scheme"],
          [secret, "wrong_auth_scheme"],
          ["Bearer two words", "invalid_api_key"],
        ];
        for (const [authorization, code] of cases) {
          const request = route.request(null, "example.com");
          const response = await send({ ...request, headers: { ...request.headers, authorization } });
          expect(response.statusCode, authorization).toBe(401);
          const body = problem(response);
          expect(body.code, authorization).toBe(code);
          expect(body.detail).not.toContain(secret);
          noneLeft(response);
        }
        expect(fixture.checker.calls).toHaveLength(0);
      });
    }

    it("answers a revoked key with 401 invalid_api_key", async () => {
      const { id, secret } = await fixture.newKey();
      expect((await send(route.request(secret, "example.com"))).statusCode).toBe(200);
      await fixture.store.keys.revokeKey(id, fixture.clock.now());
      const response = await send(route.request(secret, "example.com"));
      expect(response.statusCode).toBe(401);
      expect(problem(response).code).toBe("invalid_api_key");
      noneLeft(response);
    });

    it("answers 429 with Retry-After and remaining 0 once the quota is used up", async () => {
      const { secret } = await fixture.newKey({ quota: 2 });
      const first = await send(route.request(secret, "example.com"));
      expect(rateLimit(first)).toEqual({ remaining: 1, limit: 2, reset: 30 * 86_400 });
      await send(route.request(secret, "example.com"));
      const response = await send(route.request(secret, "example.com"));
      expect(response.statusCode).toBe(429);
      expect(problem(response).code).toBe("quota_exceeded");
      expect(rateLimit(response)).toEqual({ remaining: 0, limit: 2, reset: 30 * 86_400 });
      expect(response.headers["retry-after"]).toBe(String(30 * 86_400));
      expect(fixture.checker.calls).toHaveLength(2);
    });

    it("checks the key before the quota and the quota before the input", async () => {
      const { secret } = await fixture.newKey({ quota: 1 });
      expect((await send(route.request(null, "not a domain"))).statusCode).toBe(401);
      const invalid = await send(route.request(secret, "not a domain"));
      expect(invalid.statusCode).toBe(400);
      expect(problem(invalid).code).toBe("invalid_domain");
      expect(rateLimit(invalid).remaining).toBe(0);
      const over = await send(route.request(secret, "not a domain"));
      expect(over.statusCode).toBe(429);
    });

    it("answers a wrong method with 405 and Allow, before looking at the key, without rate-limit headers", async () => {
      const { secret } = await fixture.newKey();
      for (const key of [null, secret]) {
        const request = route.request(key, "example.com");
        const response = await send({ ...request, method: route.wrongMethod.method });
        expect(response.statusCode).toBe(405);
        expect(problem(response).code).toBe("method_not_allowed");
        expect(response.headers.allow).toBe(route.wrongMethod.allow);
        noRateLimit(response);
      }
    });

    it("answers a browser's refusal as the HTML error page, with the problem's status and headers", async () => {
      const response = await send({
        ...route.request(null, "example.com"),
        headers: { ...route.request(null, "example.com").headers, accept: "text/html,*/*;q=0.8" },
      });
      expect(response.statusCode).toBe(401);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.headers["content-security-policy"]).toMatch(/default-src 'none'/);
      expect(response.headers.vary).toMatch(/Accept/);
      expect(response.body).toContain("401 Unauthorized");
      if (route.challenges) expect(response.headers["www-authenticate"]).toBe('Bearer realm="mailrisk"');
      noneLeft(response);
    });

    if (route.readsBody) {
      const raw = (secret: string | null, contentType: string, payload: string | Buffer): InjectOptions => {
        const base: InjectOptions = {
          ...route.request(null, "example.com"),
          headers: { "content-type": contentType },
          payload,
        };
        return secret === null ? base : route.withKey(base, secret);
      };

      it("answers an oversized body with 413 body_too_large, counted", async () => {
        const { secret } = await fixture.newKey({ quota: 5 });
        const response = await send(raw(secret, "application/json", JSON.stringify({ domain: OVERSIZED })));
        expect(response.statusCode).toBe(413);
        expect(problem(response).code).toBe("body_too_large");
        expect(rateLimit(response).remaining).toBe(4);
      });

      it("answers an unsupported content type with 415 unsupported_media_type", async () => {
        const { secret } = await fixture.newKey();
        for (const contentType of ["text/plain", "application/xml", "application/octet-stream"]) {
          const response = await send(raw(secret, contentType, "domain=example.com"));
          expect(response.statusCode, contentType).toBe(415);
          expect(problem(response).code).toBe("unsupported_media_type");
          rateLimit(response);
        }
      });

      it("answers broken JSON with 400 invalid_body", async () => {
        const { secret } = await fixture.newKey();
        for (const payload of ['{"domain": "example.com"', "{'domain': 1}", "", '{"__proto__": {"x": 1}}']) {
          const response = await send(raw(secret, "application/json", payload));
          expect(response.statusCode, payload).toBe(400);
          expect(problem(response).code).toBe("invalid_body");
          rateLimit(response);
        }
      });

      it("checks the key before reading the body", async () => {
        for (const options of [
          raw(null, "application/json", JSON.stringify({ domain: OVERSIZED })),
          raw(null, "text/plain", "x"),
          raw(null, "application/json", "{"),
        ]) {
          const response = await send(options);
          expect(response.statusCode).toBe(401);
          expect(problem(response).code).toBe("missing_api_key");
          noneLeft(response);
        }
      });
    } else {
      it("ignores a request body, whatever its size or type", async () => {
        const { secret } = await fixture.newKey();
        for (const [contentType, payload] of [
          ["text/plain", "x"],
          ["application/json", "{"],
          ["application/json", JSON.stringify({ domain: OVERSIZED })],
        ] as const) {
          const response = await send({
            ...route.request(secret, "example.com"),
            headers: { ...route.request(secret, "example.com").headers, "content-type": contentType },
            payload,
          });
          expect(response.statusCode, contentType).toBe(200);
        }
      });

      it("answers an oversized input with 400 input_too_long", async () => {
        const { secret } = await fixture.newKey();
        const response = await send(route.request(secret, `${OVERSIZED}.com`));
        expect(response.statusCode).toBe(400);
        expect(problem(response).code).toBe("input_too_long");
      });
    }
  });
}

/** One request of a checking route, with its key as that route carries it. */
export interface KeyedRequest {
  name: string;
  request(secret: string | null): InjectOptions;
}

/**
 * The 401 of every checking route, those outside `securitySuite` included (bulk, usage,
 * reports, a publishable key): `x-ratelimit-requests-remaining: 0` and no other header.
 */
export function unauthorizedSuite(requests: readonly KeyedRequest[]): void {
  describe("every checking route's 401", () => {
    let fixture: HttpFixture;
    beforeEach(async () => {
      fixture = await openHttpFixture();
    });
    afterEach(() => fixture.close());

    it.each(requests)(
      "$name: remaining 0 without a key, with a wrong one and with a revoked one",
      async ({ request }) => {
        const secret = await revokedKey(fixture, {});
        for (const key of [null, "mr_notARealKey000000000000000000000", secret]) {
          const response = await fixture.app.inject(request(key));
          expect(response.statusCode, String(key)).toBe(401);
          noneLeft(response);
        }
      },
    );

    it("a revoked publishable key: remaining 0", async () => {
      const origin = "https://shop.example";
      const secret = await revokedKey(fixture, { origins: [origin] });
      const response = await fixture.app.inject({
        method: "GET",
        url: "/",
        query: { domain: "example.com" },
        headers: { "x-gateway-key": secret, origin },
      });
      expect(response.statusCode).toBe(401);
      noneLeft(response);
    });
  });
}

async function revokedKey(fixture: HttpFixture, options: { origins?: string[] }): Promise<string> {
  const { id, secret } = await fixture.newKey(options);
  await fixture.store.keys.revokeKey(id, fixture.clock.now());
  return secret;
}
