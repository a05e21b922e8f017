import { afterEach, beforeEach, expect, it } from "vitest";
import { type HttpFixture, openHttpFixture, START } from "./helpers.js";

const DAY = 86_400_000;
let fixture: HttpFixture;
beforeEach(async () => {
  fixture = await openHttpFixture();
});
afterEach(() => fixture.close());

const at = (ms: number) => new Date(START.getTime() + ms);

it("gives the full quota back when the period anchored at key creation ends", async () => {
  const { secret } = await fixture.newKey({ quota: 2, periodDays: 30 });
  const check = () =>
    fixture.app.inject({
      method: "POST",
      url: "/v2",
      headers: { authorization: `Bearer ${secret}` },
      payload: { domain: "example.com" },
    });

  fixture.clock.set(at(10 * DAY));
  expect((await check()).statusCode).toBe(200);
  expect((await check()).statusCode).toBe(200);
  const refused = await check();
  expect(refused.statusCode).toBe(429);
  expect(refused.headers["x-ratelimit-requests-reset"]).toBe(String(20 * 86_400));
  expect(refused.headers["retry-after"]).toBe(String(20 * 86_400));

  fixture.clock.set(at(30 * DAY - 1000));
  const lastSecond = await check();
  expect(lastSecond.statusCode).toBe(429);
  expect(lastSecond.headers["x-ratelimit-requests-reset"]).toBe("1");

  fixture.clock.set(at(30 * DAY));
  const renewed = await check();
  expect(renewed.statusCode).toBe(200);
  expect(renewed.headers["x-ratelimit-requests-remaining"]).toBe("1");
  expect(renewed.headers["x-ratelimit-requests-limit"]).toBe("2");
  expect(renewed.headers["x-ratelimit-requests-reset"]).toBe(String(30 * 86_400));
});
