/**
 * Properties of the two checking routes and the ops routes over generated requests
 * (`inject`, a fake checker, a real SQLite store): arbitrary query strings, repeated
 * fields, huge values, JSON of the wrong types, broken multipart and form bodies, any
 * content type, arbitrary headers. Never a 5xx, never a crash; every answer that is not
 * 2xx is problem JSON whose status and code agree, or the HTML error page when the
 * client prefers text/html.
 */

import fc from "fast-check";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prefersHtml } from "../../src/http/accept.js";
import { PROBLEM_STATUS } from "../../src/service/shared/problem-codes.js";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

const RUNS = { numRuns: 200, interruptAfterTimeLimit: 20_000 };

let fixture: HttpFixture;
let secret: string;
beforeAll(async () => {
  fixture = await openHttpFixture({ pageRateLimit: 1_000_000 });
  secret = (await fixture.newKey({ quota: 1_000_000_000 })).secret;
});
afterAll(() => fixture.close());

function expectAnswer(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBeLessThan(500);
  if (response.statusCode < 300) return;
  const accept = response.raw.req.headers.accept;
  if (prefersHtml(Array.isArray(accept) ? accept.join(",") : accept)) {
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    if (response.raw.req.method !== "HEAD")
      expect(response.body).toContain(`<h1 id="error-heading">${response.statusCode} `);
    return;
  }
  expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
  if (response.body === "" && response.raw.req.method === "HEAD") return;
  const body = response.json() as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(["type", "title", "status", "detail", "code"]);
  expect(body.status).toBe(response.statusCode);
  expect(PROBLEM_STATUS[body.code as keyof typeof PROBLEM_STATUS]).toBe(response.statusCode);
  expect(typeof body.detail).toBe("string");
}

/** Text of every kind, short or huge. */
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom("a@example.com", "example.com", "a+b@example.com", "", " ", "@", "%", "%zz"),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary-ascii", minLength: 300, maxLength: 6000 }) },
);
const fieldName = fc.oneof(
  fc.constantFrom("email", "domain", "email[]", "domain[0]", "x"),
  fc.string({ maxLength: 8 }),
);

/** A query string: pairs, encoded properly or not at all (a raw `%`, `+`, `&`, `#`). */
const queryString = fc
  .array(fc.tuple(fieldName, text, fc.boolean()), { maxLength: 5 })
  .map((pairs) =>
    pairs
      .map(([name, value, encode]) =>
        encode ? `${encodeURIComponent(name)}=${encodeURIComponent(value)}` : `${name}=${value}`,
      )
      .join("&"),
  );

/** Header values a client can send (a visible ASCII token or text); the raw-socket test covers the rest. */
const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.constantFrom(
    "text/html",
    "application/json",
    "*/*",
    "text/html;q=0.1, application/json;q=0.9",
    "Bearer",
    "Basic x",
  ),
);
const headers = fc.dictionary(
  fc.constantFrom(
    "accept",
    "x-gateway-key",
    "authorization",
    "content-type",
    "x-forwarded-for",
    "accept-encoding",
    "x-anything",
  ),
  headerValue,
  { maxKeys: 4 },
);

/** A valid key, or any header the generator gave (no key, a wrong one, a malformed one). */
const keyed = fc.boolean();

function safeUrl(path: string, query: string): string | undefined {
  // A URL light-my-request itself refuses (characters no client puts on the wire) is not a request.
  const url = query === "" ? path : `${path}?${query}`;
  return [...url].some((char) => char <= " " || char > "~") ? undefined : url;
}

describe("generated requests", () => {
  it("GET / with any query and headers: never a 5xx, problems as problem JSON", async () => {
    await fc.assert(
      fc.asyncProperty(queryString, headers, keyed, async (query, given, withKey) => {
        const url = safeUrl("/", query);
        fc.pre(url !== undefined);
        const response = await fixture.app.inject({
          method: "GET",
          url: url as string,
          headers: withKey ? { ...given, "x-gateway-key": secret } : given,
        });
        if (
          response.statusCode === 200 &&
          response.headers["content-type"]?.toString().startsWith("text/html")
        ) {
          return; // the home page
        }
        expectAnswer(response);
      }),
      RUNS,
    );
  });

  it("POST /v2/ with any body under any content type: never a 5xx, problems as problem JSON", async () => {
    const json = fc.oneof(
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc
        .record({ email: fc.jsonValue(), domain: fc.jsonValue() }, { requiredKeys: [] })
        .map((value) => JSON.stringify(value)),
      text,
    );
    const form = fc.oneof(queryString, text);
    const boundary = "----mailrisk";
    const multipart = fc
      .tuple(fc.array(fc.tuple(fieldName, text), { maxLength: 3 }), fc.boolean(), fc.nat(200))
      .map(([fields, close, cut]) => {
        const whole = `${fields
          .map(
            ([name, value]) =>
              `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
          )
          .join("")}${close ? `--${boundary}--\r\n` : ""}`;
        return cut > 0 ? whole.slice(0, Math.max(0, whole.length - cut)) : whole;
      });
    const body = fc.oneof(
      fc.tuple(fc.constant("application/json"), json),
      fc.tuple(fc.constant("application/x-www-form-urlencoded"), form),
      fc.tuple(fc.constant(`multipart/form-data; boundary=${boundary}`), multipart),
      fc.tuple(
        fc.constantFrom(
          "multipart/form-data",
          "multipart/form-data; boundary=",
          "text/plain",
          "application/xml",
          "application/json; charset=latin1",
          "",
        ),
        text,
      ),
      fc.tuple(
        fc.constant("application/octet-stream"),
        fc.uint8Array({ maxLength: 20_000 }).map((bytes) => Buffer.from(bytes)),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        body,
        headers,
        keyed,
        fc.constantFrom("/v2/", "/v2", "/v2/?domain=example.com"),
        async ([type, payload], given, withKey, url) => {
          const requestHeaders: Record<string, string> = { ...given, "content-type": type };
          if (type === "") delete requestHeaders["content-type"];
          if (withKey) requestHeaders.authorization = `Bearer ${secret}`;
          const response = await fixture.app.inject({
            method: "POST",
            url,
            headers: requestHeaders,
            payload,
          } as InjectOptions);
          expectAnswer(response);
        },
      ),
      RUNS,
    );
  });

  it("the ops routes and unknown paths with any method, query and headers: never a 5xx", async () => {
    const path = fc.oneof(
      fc.constantFrom(
        "/healthz",
        "/readyz",
        "/metrics",
        "/openapi.json",
        "/healthz/",
        "/v2/x",
        "/nowhere",
        "//",
        "/%",
        "/%zz",
        "/..%2f",
      ),
      fc.webPath().map((web) => (web.startsWith("/") ? web : `/${web}`)),
    );
    const method = fc.constantFrom(
      "GET",
      "HEAD",
      "POST",
      "PUT",
      "DELETE",
      "OPTIONS",
      "PATCH",
    ) as fc.Arbitrary<InjectOptions["method"]>;
    await fc.assert(
      fc.asyncProperty(path, method, queryString, headers, async (route, verb, query, given) => {
        const url = safeUrl(route, query);
        fc.pre(url !== undefined && !url.startsWith("/domain"));
        const response = await fixture.app.inject({ method: verb, url: url as string, headers: given });
        if (
          response.statusCode === 200 &&
          response.headers["content-type"]?.toString().startsWith("text/html")
        ) {
          return; // the home page
        }
        expectAnswer(response);
      }),
      RUNS,
    );
  });

  it("an unencoded + in an address says to encode it as %2B", async () => {
    const response = await fixture.app.inject({
      url: "/?email=a+b@example.com",
      headers: { "x-gateway-key": secret },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "invalid_email" });
    expect(response.json().detail).toContain("%2B");
    const form = await fixture.app.inject({
      method: "POST",
      url: "/v2/",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/x-www-form-urlencoded" },
      payload: "email=a+b@example.com",
    });
    expect(form.json()).toMatchObject({ status: 400, code: "invalid_email" });
    expect(form.json().detail).toContain("%2B");
    const encoded = await fixture.app.inject({
      url: "/?email=a%2Bb@example.com",
      headers: { "x-gateway-key": secret },
    });
    expect(encoded.statusCode).toBe(200);
  });
});
