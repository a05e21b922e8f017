/**
 * `POST /v2/bulk` (docs/api.md "Checking routes", "Keys, plans, quotas"): results in input order, each with its input,
 * a problem object for an item that is no address or domain; one unit of quota per
 * item, all or nothing (429 with nothing counted, and the units really left in the
 * headers); the key checked before the body (401 first); a body that cannot be read
 * answered 400/413/415 and not counted; a 5xx gives every unit back.
 */
import type { InjectOptions } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import { bulkBodyLimit } from "../../src/http/limits.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
afterEach(() => fixture.close());

function bulk(secret: string | null, payload: unknown, contentType = "application/json"): InjectOptions {
  return {
    method: "POST",
    url: "/v2/bulk",
    headers: {
      "content-type": contentType,
      ...(secret === null ? {} : { authorization: `Bearer ${secret}` }),
    },
    payload: typeof payload === "string" ? payload : JSON.stringify(payload),
  };
}

const remaining = (response: { headers: Record<string, unknown> }) =>
  Number(response.headers["x-ratelimit-requests-remaining"]);

describe("POST /v2/bulk", () => {
  it("answers one result per item in input order, each with its input, a problem for a bad item", async () => {
    // The first domain answers last: the order must still be the items'.
    fixture = await openHttpFixture({
      checker: fakeChecker(async (input) => {
        if (input.domain === "slow.com") await new Promise((resolve) => setTimeout(resolve, 50));
        return { record: sampleRecord({ domain: input.domain, base_domain: input.domain }), cache: "hit" };
      }),
    });
    const { secret } = await fixture.newKey({ quota: 100 });
    const items = ["slow.com", "not a domain", "Someone@Example.org ", "", "b.net"];
    const response = await fixture.app.inject(bulk(secret, { items }));
    expect(response.statusCode).toBe(200);
    const { results } = response.json() as { results: Record<string, unknown>[] };
    expect(results.map((result) => result.input)).toEqual(items);
    expect(results.map((result) => result.domain ?? result.code)).toEqual([
      "slow.com",
      "invalid_domain",
      "example.org",
      "missing_input",
      "b.net",
    ]);
    expect(Object.keys(results[0] ?? {}).slice(0, 3)).toEqual(["input", "valid", "block"]);
    expect(results[1]).toEqual({
      input: "not a domain",
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: expect.stringContaining("not a domain"),
      code: "invalid_domain",
    });
    expect(remaining(response)).toBe(95);
  });

  it("answers 429 and counts nothing when fewer units are left than items, and says how many are left", async () => {
    fixture = await openHttpFixture();
    const { secret } = await fixture.newKey({ quota: 5 });
    expect(remaining(await fixture.app.inject(bulk(secret, { items: ["a.com", "b.com", "c.com"] })))).toBe(2);
    const calls = fixture.checker.calls.length;
    const refused = await fixture.app.inject(bulk(secret, { items: ["a.com", "b.com", "c.com"] }));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      code: "quota_exceeded",
      detail: expect.stringContaining("3 units"),
    });
    expect(refused.headers["retry-after"]).toBe(String(30 * 86_400));
    expect(remaining(refused)).toBe(2);
    expect(refused.headers["x-ratelimit-requests-limit"]).toBe("5");
    expect(fixture.checker.calls).toHaveLength(calls);
    const fits = await fixture.app.inject(bulk(secret, { items: ["a.com", "b.com"] }));
    expect(fits.statusCode).toBe(200);
    expect(remaining(fits)).toBe(0);
  });

  it("checks the key before the body", async () => {
    fixture = await openHttpFixture({ bulkMaxItems: 3 });
    const tooMany = { items: ["a.com", "b.com", "c.com", "d.com"] };
    for (const options of [
      bulk(null, tooMany),
      bulk(null, "x", "text/plain"),
      bulk(null, "{"),
      bulk("mr_notARealKey000000000000000000000", tooMany),
      bulk("mr_notARealKey000000000000000000000", "items=a.com", "application/x-www-form-urlencoded"),
    ]) {
      const response = await fixture.app.inject(options);
      expect(response.statusCode).toBe(401);
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm="mailrisk"/);
      // No key: none left, and no limit or reset to tell.
      expect(response.headers["x-ratelimit-requests-remaining"]).toBe("0");
      expect(response.headers["x-ratelimit-requests-limit"]).toBeUndefined();
    }
    expect(fixture.checker.calls).toHaveLength(0);
  });

  it("refuses a body it cannot take (400, 413, 415) without counting it", async () => {
    fixture = await openHttpFixture({ bulkMaxItems: 3 });
    const { secret } = await fixture.newKey({ quota: 10 });
    const cases: [InjectOptions, number, string][] = [
      [bulk(secret, { items: ["a.com", "b.com", "c.com", "d.com"] }), 413, "body_too_large"],
      [bulk(secret, { items: ["x".repeat(bulkBodyLimit(3))] }), 413, "body_too_large"],
      [bulk(secret, "items=a.com", "application/x-www-form-urlencoded"), 415, "unsupported_media_type"],
      [bulk(secret, "a.com", "text/plain"), 415, "unsupported_media_type"],
      [bulk(secret, '{"items": ["a.com"'), 400, "invalid_body"],
      [bulk(secret, { items: [] }), 400, "invalid_body"],
      [bulk(secret, { items: ["a.com", { domain: "b.com" }] }), 400, "invalid_body"],
      // Strict types: a number or a boolean is no input, and is not turned into one.
      [bulk(secret, { items: [42, true] }), 400, "invalid_body"],
      [bulk(secret, { items: ["a.com", 42] }), 400, "invalid_body"],
      [bulk(secret, { items: "a.com" }), 400, "invalid_body"],
      [bulk(secret, { item: ["a.com"] }), 400, "invalid_body"],
      [bulk(secret, ["a.com"]), 400, "invalid_body"],
      [
        { method: "POST", url: "/v2/bulk", headers: { authorization: `Bearer ${secret}` } },
        415,
        "unsupported_media_type",
      ],
    ];
    for (const [options, status, code] of cases) {
      const response = await fixture.app.inject(options);
      expect(
        { status: response.statusCode, code: response.json().code },
        String(options.payload).slice(0, 40),
      ).toEqual({
        status,
        code,
      });
      expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(remaining(response)).toBe(10);
    }
    expect(fixture.checker.calls).toHaveLength(0);
    const response = await fixture.app.inject(bulk(secret, { items: ["a.com", "b.com", "c.com"] }));
    expect(response.statusCode).toBe(200);
    expect(remaining(response)).toBe(7);
  });

  it("gives every unit back when the answer is a 5xx", async () => {
    fixture = await openHttpFixture({
      checker: fakeChecker(() => {
        throw new TypeError("boom");
      }),
    });
    const { secret } = await fixture.newKey({ quota: 10 });
    const response = await fixture.app.inject(bulk(secret, { items: ["a.com", "b.com", "c.com"] }));
    expect(response.statusCode).toBe(500);
    expect(response.json().code).toBe("internal_error");
    expect(remaining(response)).toBe(10);
    const usage = await fixture.store.usage.authorize(secret, fixture.clock.now(), 0);
    expect(usage?.quota.used).toBe(0);
  });

  it("answers a wrong method with 405 and Allow", async () => {
    fixture = await openHttpFixture();
    const response = await fixture.app.inject({ method: "GET", url: "/v2/bulk" });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe("POST");
  });
});
