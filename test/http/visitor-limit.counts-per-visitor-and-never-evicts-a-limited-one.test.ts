import { describe, expect, it } from "vitest";
import { createVisitorLimiter } from "../../src/http/visitor-limit.js";

const T0 = 1_700_000_000_000;

describe("the per-visitor limit", () => {
  it("allows the limit per minute, then refuses with the seconds left of the window", () => {
    const limiter = createVisitorLimiter(3);
    expect([1, 2, 3].map((i) => limiter.hit("key_a 10.0.0.1", T0 + i).allowed)).toEqual([true, true, true]);
    expect(limiter.hit("key_a 10.0.0.1", T0 + 20_000)).toEqual({ allowed: false, retryAfterSeconds: 41 });
    // Another address, or the same address with another key, is another visitor.
    expect(limiter.hit("key_a 10.0.0.2", T0 + 20_000).allowed).toBe(true);
    expect(limiter.hit("key_b 10.0.0.1", T0 + 20_000).allowed).toBe(true);
    // The window started with the first request; once it ends the visitor starts afresh.
    expect(limiter.hit("key_a 10.0.0.1", T0 + 60_000).allowed).toBe(false);
    expect(limiter.hit("key_a 10.0.0.1", T0 + 60_001).allowed).toBe(true);
  });

  it("forgets the least recent visitor under the limit when full, but never a limited one", () => {
    const limiter = createVisitorLimiter(2, 3);
    limiter.hit("limited", T0);
    limiter.hit("limited", T0);
    expect(limiter.hit("limited", T0).allowed).toBe(false);
    limiter.hit("counted", T0);
    limiter.hit("counted", T0);
    // A crowd of new visitors fills the memory many times over.
    for (let i = 0; i < 1000; i++) limiter.hit(`crowd ${i}`, T0 + 1);
    expect(limiter.hit("limited", T0 + 2).allowed).toBe(false);
    // The forgotten visitor under the limit starts a new window: at worst it gets a few more.
    expect(limiter.hit("counted", T0 + 2).allowed).toBe(true);
  });

  it("lets a limited visitor go once its window ended, also after many others came and went", () => {
    const limiter = createVisitorLimiter(1, 2);
    limiter.hit("a", T0);
    expect(limiter.hit("a", T0 + 1)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    for (let i = 0; i < 100; i++) {
      limiter.hit(`b ${i}`, T0 + 2);
      limiter.hit(`b ${i}`, T0 + 2);
    }
    expect(limiter.hit("a", T0 + 59_999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.hit("a", T0 + 60_000).allowed).toBe(true);
  });
});
