/**
 * The window limiter behind the publishable keys' per-visitor limit and the admin API's
 * lock-out (src/http/window-limiter.ts): windows start with a client's first event, the
 * event that reaches the limit passes and the next finds the lock, memory is bounded,
 * a locked client is never forgotten before its lock ends, and when no lock can be
 * recorded the client is refused (fail closed).
 */
import { describe, expect, it } from "vitest";
import { ADMIN_LOCKOUT } from "../../src/http/admin/token.js";
import { VISITORS_REMEMBERED } from "../../src/http/publishable-keys.js";
import { WindowLimiter, type WindowLimiterOptions } from "../../src/http/window-limiter.js";

const T0 = 1_700_000_000_000;

/** A limiter on a clock the test moves, and a request as the checking routes make one: 0 when admitted, else the seconds to wait. */
function limiterAt(options: WindowLimiterOptions) {
  let now = T0;
  const limiter = new WindowLimiter({ ...options, now: () => now });
  return {
    limiter,
    at: (ms: number) => {
      now = T0 + ms;
    },
    request: (client: string) => limiter.lockedSeconds(client) || limiter.count(client),
  };
}

describe("as the per-visitor limit (locked until the window ends)", () => {
  it("admits the limit per window, then refuses with the seconds left of it", () => {
    const { at, request } = limiterAt({ limit: 3, maxClients: VISITORS_REMEMBERED });
    for (const ms of [1, 2, 3]) {
      at(ms);
      expect(request("key_a 10.0.0.1")).toBe(0);
    }
    at(20_000);
    expect(request("key_a 10.0.0.1")).toBe(41);
    // Another address, or the same address with another key, is another visitor.
    expect(request("key_a 10.0.0.2")).toBe(0);
    expect(request("key_b 10.0.0.1")).toBe(0);
    // The window started with the first request; once it ends the visitor starts afresh.
    at(60_000);
    expect(request("key_a 10.0.0.1")).toBe(1);
    at(60_001);
    expect(request("key_a 10.0.0.1")).toBe(0);
  });

  it("forgets the least recent visitor under the limit when full, but never a locked one", () => {
    const { limiter, request } = limiterAt({ limit: 2, maxClients: 3 });
    request("limited");
    request("limited");
    expect(request("limited")).toBe(60);
    request("counted");
    // A crowd of new visitors fills the memory many times over.
    for (let i = 0; i < 1000; i++) request(`crowd ${i}`);
    expect(limiter.size).toBeLessThanOrEqual(6);
    expect(request("limited")).toBe(60);
    // The forgotten visitor under the limit starts a new window: at worst it gets a few more.
    expect(request("counted")).toBe(0);
  });

  it("refuses a visitor it has no room to lock, and lets a locked one go once its window ended", () => {
    const { at, request } = limiterAt({ limit: 1, maxClients: 2 });
    expect(request("a")).toBe(0);
    at(1);
    expect(request("a")).toBe(60);
    at(2);
    expect(request("b")).toBe(0);
    // Two locks held, the most there is room for: c reaches the limit with nowhere to be locked.
    expect(request("c")).toBe(60);
    expect(request("c")).toBe(60);
    at(59_999);
    expect(request("a")).toBe(1);
    at(60_000);
    expect(request("a")).toBe(0);
  });
});

describe("as the admin lock-out (10 wrong tokens a minute lock for a minute)", () => {
  it("locks on the 10th wrong token for a minute, then counts anew", () => {
    const { limiter, at } = limiterAt(ADMIN_LOCKOUT);
    for (let i = 0; i < 9; i++) expect(limiter.count("a")).toBe(0);
    expect(limiter.lockedSeconds("a")).toBe(0);
    expect(limiter.count("a")).toBe(0);
    expect(limiter.lockedSeconds("a")).toBe(60);
    at(59_000);
    expect(limiter.lockedSeconds("a")).toBe(1);
    at(60_000);
    expect(limiter.lockedSeconds("a")).toBe(0);
    limiter.count("a");
    expect(limiter.lockedSeconds("a")).toBe(0);
  });

  it("counts within a minute only: 9 wrong, a minute's pause, 9 more lock nothing", () => {
    const { limiter, at } = limiterAt(ADMIN_LOCKOUT);
    for (let i = 0; i < 9; i++) limiter.count("a");
    at(61_000);
    for (let i = 0; i < 9; i++) limiter.count("a");
    expect(limiter.lockedSeconds("a")).toBe(0);
  });

  it("holds a bounded table and never forgets a locked address for rotating ones", () => {
    const { limiter } = limiterAt({ ...ADMIN_LOCKOUT, maxClients: 3 });
    for (let i = 0; i < 10; i++) limiter.count("locked");
    for (let i = 0; i < 100; i++) limiter.count(`rotating-${i}`);
    expect(limiter.size).toBeLessThanOrEqual(6);
    expect(limiter.lockedSeconds("locked")).toBe(60);
  });
});
