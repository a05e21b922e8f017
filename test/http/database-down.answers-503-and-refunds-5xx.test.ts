import { afterEach, expect, it } from "vitest";
import type { Store } from "../../src/store/types.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

/** The store as the app sees it, with a switch that makes every call fail like an unreachable database. */
function switchableStore() {
  const state = { down: false };
  const wrap = (store: Store): Store =>
    new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) =>
          state.down
            ? Promise.reject(new Error("connect ECONNREFUSED 10.0.0.1:5432 password=secret"))
            : value.apply(target, args);
      },
    });
  return { state, wrap };
}

let fixture: HttpFixture;
afterEach(() => fixture.close());

const direct = (secret: string) =>
  fixture.app.inject({
    method: "POST",
    url: "/v2/",
    headers: { authorization: `Bearer ${secret}` },
    payload: { domain: "example.com" },
  });

it("answers /readyz with 503 and Retry-After while the database is unreachable, /healthz with 200", async () => {
  const db = switchableStore();
  fixture = await openHttpFixture({ wrapStore: db.wrap });
  expect((await fixture.app.inject({ url: "/readyz" })).statusCode).toBe(200);
  db.state.down = true;
  const ready = await fixture.app.inject({ url: "/readyz" });
  expect(ready.statusCode).toBe(503);
  expect(ready.headers["retry-after"]).toMatch(/^\d+$/);
  expect(ready.json()).toMatchObject({ status: 503, code: "database_unavailable" });
  expect(ready.body).not.toMatch(/ECONNREFUSED|password/);
  expect((await fixture.app.inject({ url: "/healthz" })).json()).toEqual({ status: "ok" });
});

it("answers a checking request with 503 when authentication cannot reach the database", async () => {
  const db = switchableStore();
  fixture = await openHttpFixture({ wrapStore: db.wrap });
  const { secret } = await fixture.newKey();
  db.state.down = true;
  for (const response of [
    await direct(secret),
    await fixture.app.inject({ url: "/?domain=example.com", headers: { "x-gateway-key": secret } }),
  ]) {
    expect(response.statusCode).toBe(503);
    expect(response.json().code).toBe("database_unavailable");
    expect(response.headers["retry-after"]).toMatch(/^\d+$/);
    expect(response.headers["x-ratelimit-requests-remaining"]).toBe("0");
    expect(response.body).not.toMatch(/ECONNREFUSED|password/);
  }
});

it("answers 503 when a check fails because the database went away", async () => {
  const db = switchableStore();
  const checker = fakeChecker(() => {
    db.state.down = true;
    throw new Error("select from records: connection terminated");
  });
  fixture = await openHttpFixture({ wrapStore: db.wrap, checker });
  const { secret } = await fixture.newKey();
  const response = await direct(secret);
  expect(response.statusCode).toBe(503);
  expect(response.json().code).toBe("database_unavailable");
  expect(response.headers["retry-after"]).toMatch(/^\d+$/);
});

it("answers 500 internal_error without internals when the check fails otherwise, and gives the request back", async () => {
  const checker = fakeChecker(() => {
    throw new Error("TypeError at /srv/mailrisk/src/core/check.ts:42");
  });
  fixture = await openHttpFixture({ checker });
  const { secret } = await fixture.newKey({ quota: 5 });
  const failed = await direct(secret);
  expect(failed.statusCode).toBe(500);
  expect(failed.json()).toEqual({
    type: "about:blank",
    title: "Internal Server Error",
    status: 500,
    detail: expect.any(String),
    code: "internal_error",
  });
  expect(failed.body).not.toMatch(/TypeError|check\.ts|srv/);
  expect(failed.headers["x-ratelimit-requests-remaining"]).toBe("5");
  const usage = await fixture.store.consumeQuota(
    (await fixture.store.authenticate(secret)) ?? expect.fail("key"),
    fixture.clock.now(),
  );
  expect(usage.remaining).toBe(4);
});
