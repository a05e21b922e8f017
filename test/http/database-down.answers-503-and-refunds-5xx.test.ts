import { afterEach, expect, it } from "vitest";
import type { AppStore } from "../../src/app.js";
import { StoreUnavailableError } from "../../src/store/errors.js";
import { capturedLogger, fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

/** What the store raises for a driver error such as this one (test/store/unavailable.*). */
const unreachable = () =>
  new StoreUnavailableError(new Error("connect ECONNREFUSED 10.0.0.1:5432 password=secret"));

/**
 * The store as the app sees it, with a switch that makes every call fail the way the
 * store fails when its database is unreachable.
 */
function switchableStore() {
  const state = { down: false };
  const guard =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A) =>
      state.down ? Promise.reject(unreachable()) : call(...args);
  const wrap = (store: AppStore): AppStore => ({
    usage: {
      authorize: guard((...args: Parameters<AppStore["usage"]["authorize"]>) =>
        store.usage.authorize(...args),
      ),
      refund: guard((...args: Parameters<AppStore["usage"]["refund"]>) => store.usage.refund(...args)),
      findKey: guard((...args: Parameters<AppStore["usage"]["findKey"]>) => store.usage.findKey(...args)),
      // Memory only: it answers while the database is down, as the store's does.
      rememberedKey: (...args: Parameters<AppStore["usage"]["rememberedKey"]>) =>
        store.usage.rememberedKey(...args),
      countRemembered: (request) =>
        state.down ? request.failed(unreachable()) : store.usage.countRemembered(request),
      isPublishableOrigin: guard((origin: string, now: Date) => store.usage.isPublishableOrigin(origin, now)),
      authorizeKey: guard((id: string, now: Date, units: number) => store.usage.authorizeKey(id, now, units)),
    },
    recent: { listRecent: guard((limit: number) => store.recent.listRecent(limit)) },
    reports: {
      fileReport: guard((...args: Parameters<AppStore["reports"]["fileReport"]>) =>
        store.reports.fileReport(...args),
      ),
      getReport: guard((id: string) => store.reports.getReport(id)),
    },
    jobs: store.jobs,
    ping: guard(() => store.ping()),
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

/** Requests left on the key now, by counting one more. */
async function remainingAfterOneMore(secret: string): Promise<number | null | undefined> {
  return (await fixture.store.usage.authorize(secret, fixture.clock.now()))?.quota.remaining;
}

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

it("answers a checking request with 503 when authentication cannot reach the database, logged at warn", async () => {
  const db = switchableStore();
  const { lines, logger } = capturedLogger();
  fixture = await openHttpFixture({ wrapStore: db.wrap, logger });
  const { secret } = await fixture.newKey();
  db.state.down = true;
  for (const response of [
    await direct(secret),
    await fixture.app.inject({ url: "/?domain=example.com", headers: { "x-gateway-key": secret } }),
  ]) {
    expect(response.statusCode).toBe(503);
    expect(response.json().code).toBe("database_unavailable");
    expect(response.headers["retry-after"]).toMatch(/^\d+$/);
    // The key was never read: no quota to tell.
    expect(response.headers["x-ratelimit-requests-remaining"]).toBeUndefined();
    expect(response.body).not.toMatch(/ECONNREFUSED|password/);
  }
  const logged = lines
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === "database unavailable");
  expect(logged.map((entry) => entry.level)).toEqual([40, 40]);
  // The log names the cause; the answer does not.
  expect(logged[0].err.message).toMatch(/^the database is unavailable: connect ECONNREFUSED/);
});

it("answers 503 when a check fails because the database went away, and gives the request back", async () => {
  const db = switchableStore();
  const checker = fakeChecker(() => {
    throw unreachable();
  });
  fixture = await openHttpFixture({ wrapStore: db.wrap, checker });
  const { secret } = await fixture.newKey({ quota: 5 });
  const response = await direct(secret);
  expect(response.statusCode).toBe(503);
  expect(response.json().code).toBe("database_unavailable");
  expect(response.headers["retry-after"]).toMatch(/^\d+$/);
  expect(response.headers["x-ratelimit-requests-remaining"]).toBe("5");
  expect(await remainingAfterOneMore(secret)).toBe(4);
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
  expect(await remainingAfterOneMore(secret)).toBe(4);
});

it("answers 500 and logs an error when authorization fails for another reason than the database", async () => {
  const { lines, logger } = capturedLogger();
  fixture = await openHttpFixture({
    logger,
    wrapStore: (store) => ({
      ...store,
      usage: { ...store.usage, authorize: () => Promise.reject(new TypeError("cannot read 'quota'")) },
    }),
  });
  const { secret } = await fixture.newKey();
  const response = await direct(secret);
  expect(response.statusCode).toBe(500);
  expect(response.json().code).toBe("internal_error");
  expect(response.headers["retry-after"]).toBeUndefined();
  const logged = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === "unhandled error");
  expect(logged).toEqual([
    expect.objectContaining({ level: 50, err: expect.objectContaining({ type: "TypeError" }) }),
  ]);
});
