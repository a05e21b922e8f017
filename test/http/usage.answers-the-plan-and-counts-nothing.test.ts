import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { directCheck, type HttpFixture, openHttpFixture, START } from "./helpers.js";

const DAY = 86_400_000;
let fixture: HttpFixture;
beforeEach(async () => {
  fixture = await openHttpFixture();
});
afterEach(() => fixture.close());

const usage = (secret: string | null) =>
  fixture.app.inject({
    method: "GET",
    url: "/v2/usage",
    headers: secret === null ? {} : { authorization: `Bearer ${secret}` },
  });
const check = (secret: string) => directCheck(fixture, secret);

describe("GET /v2/usage", () => {
  it("answers plan, limit, used, remaining and reset_at, in that order, and counts nothing", async () => {
    const { secret } = await fixture.newKey({ quota: 3, periodDays: 30 });
    fixture.clock.set(new Date(START.getTime() + 10 * DAY));
    await check(secret);
    for (let i = 0; i < 5; i++) {
      const response = await usage(secret);
      expect(response.statusCode).toBe(200);
      expect(Object.keys(response.json())).toEqual(["plan", "limit", "used", "remaining", "reset_at"]);
      expect(response.json()).toEqual({
        plan: "test-3-30",
        limit: 3,
        used: 1,
        remaining: 2,
        reset_at: "2025-01-31T00:00:00+00:00",
      });
      expect(response.headers["x-ratelimit-requests-remaining"]).toBe("2");
      expect(response.headers["x-ratelimit-requests-limit"]).toBe("3");
      expect(response.headers["x-ratelimit-requests-reset"]).toBe(String(20 * 86_400));
    }
    expect((await check(secret)).headers["x-ratelimit-requests-remaining"]).toBe("1");
  });

  it("still answers when the quota is used up", async () => {
    const { secret } = await fixture.newKey({ quota: 1 });
    await check(secret);
    expect((await check(secret)).statusCode).toBe(429);
    const response = await usage(secret);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ limit: 1, used: 1, remaining: 0 });
  });

  it("reports an unlimited plan with null limit and remaining, still counting what is used", async () => {
    const { secret } = await fixture.newKey({ quota: null });
    await check(secret);
    const counted = await check(secret);
    expect(counted.headers["x-ratelimit-requests-limit"]).toBe("2147483647");
    expect(counted.headers["x-ratelimit-requests-remaining"]).toBe("2147483647");
    expect((await usage(secret)).json()).toMatchObject({ limit: null, used: 2, remaining: null });
  });

  it("refuses a missing, unknown or revoked key with 401 and remaining 0", async () => {
    const missing = await usage(null);
    expect(missing.statusCode).toBe(401);
    expect(missing.json().code).toBe("missing_api_key");
    expect((await usage("mr_unknown")).json().code).toBe("invalid_api_key");
    const { id, secret } = await fixture.newKey();
    await fixture.store.keys.revokeKey(id, fixture.clock.now());
    const revoked = await usage(secret);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.headers["x-ratelimit-requests-remaining"]).toBe("0");
  });

  it("answers other methods with 405, without rate-limit headers", async () => {
    const response = await fixture.app.inject({ method: "POST", url: "/v2/usage" });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe("GET, HEAD");
    expect(response.headers["x-ratelimit-requests-remaining"]).toBeUndefined();
  });
});
