/**
 * The page limiter: per address, per /24 (IPv4) and /64 (IPv6) prefix at 4 × the
 * address limit, and a global budget a minute. Rotating addresses within one /24 get
 * limited; 10,300 other addresses do not make it forget a limited one; the global
 * budget answers 503 with Retry-After; a new minute starts every count again. First the
 * limiter itself on a test clock, then the app over `inject` with real client addresses.
 */
import { afterEach, describe, expect, it } from "vitest";
import { prefixOf, subscriberOf } from "../../../src/http/client-networks.js";
import { PAGE_WINDOW_MS, PageLimiter } from "../../../src/web/page-limiter.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

describe("prefixOf", () => {
  it.each([
    ["203.0.113.77", "203.0.113.0/24"],
    ["::ffff:203.0.113.77", "203.0.113.0/24"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["2001:0db8:0000:0002::abcd", "2001:db8:0:2::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
  ])("%s is in %s", (address, prefix) => {
    expect(prefixOf(address)).toBe(prefix);
  });
});

describe("subscriberOf", () => {
  it.each([
    ["203.0.113.77", "203.0.113.77"],
    ["::ffff:203.0.113.77", "203.0.113.77"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::ffff", "2001:db8:1:2::/64"],
    ["not an address", "not an address"],
  ])("%s is counted as %s", (address, client) => {
    expect(subscriberOf(address)).toBe(client);
  });
});

describe("PageLimiter", () => {
  const START = 1_767_225_600_000; // a minute's start
  const limits = { perAddress: 3, perPrefix: 12, global: 1_000_000 };

  it("limits addresses rotating within one /24 and one /64", () => {
    const limiter = new PageLimiter(limits, () => START);
    const v4 = Array.from({ length: 20 }, (_, i) => limiter.take(`198.51.100.${i + 1}`));
    expect(v4.filter((refusal) => refusal === undefined)).toHaveLength(12);
    expect(v4.at(-1)).toEqual({ over: "prefix", retryAfterSeconds: 60 });
    const v6 = Array.from({ length: 20 }, (_, i) => limiter.take(`2001:db8:7:7::${(i + 1).toString(16)}`));
    expect(v6.filter((refusal) => refusal === undefined)).toHaveLength(12);
    // Another /24 is its own.
    expect(limiter.take("198.51.101.1")).toBeUndefined();
  });

  it("never forgets a limited address, however many others come", () => {
    let now = START;
    const limiter = new PageLimiter(limits, () => now);
    for (let i = 0; i < 3; i++) expect(limiter.take("192.0.2.1")).toBeUndefined();
    expect(limiter.take("192.0.2.1")?.over).toBe("address");
    for (let i = 0; i < 10_300; i++) {
      expect(limiter.take(`10.${(i >> 8) & 255}.${i & 255}.${i % 7}`)).toBeUndefined();
    }
    now += 30_000;
    expect(limiter.take("192.0.2.1")).toEqual({ over: "address", retryAfterSeconds: 30 });
    now += 30_000;
    expect(limiter.take("192.0.2.1")).toBeUndefined();
  });

  it("trips the global budget, and bounds its memory by it", () => {
    let now = START;
    const limiter = new PageLimiter({ perAddress: 3, perPrefix: 12, global: 100 }, () => now);
    const answers = Array.from({ length: 150 }, (_, i) => limiter.take(`10.0.${i}.1`));
    expect(answers.filter((refusal) => refusal === undefined)).toHaveLength(100);
    expect(answers.at(-1)).toEqual({ over: "global", retryAfterSeconds: 60 });
    expect(limiter.remembered).toBe(200); // 100 addresses and their 100 prefixes
    now += PAGE_WINDOW_MS;
    expect(limiter.take("10.0.200.1")).toBeUndefined();
    expect(limiter.remembered).toBe(2);
  });
});

describe("the pages", () => {
  let fixture: HttpFixture | undefined;
  afterEach(() => fixture?.close());

  const page = (from: string) =>
    (fixture as HttpFixture).app.inject({
      url: "/domain/example.com",
      remoteAddress: from,
      headers: { accept: "text/html" },
    });

  it("answer 429 to addresses rotating within one /24, and other networks go on", async () => {
    fixture = await openHttpFixture({ pageRateLimit: 2 });
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) statuses.push((await page(`203.0.113.${i}`)).statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(8);
    const limited = await page("203.0.113.200");
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(limited.body).toContain("from your network");
    expect((await page("198.51.100.1")).statusCode).toBe(200);
  });

  it("answer 503 with Retry-After once the global budget is spent", async () => {
    fixture = await openHttpFixture({ pageRateLimit: 2, pageGlobalRateLimit: 5 });
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i++) statuses.push((await page(`192.0.${i}.1`)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const busy = await page("192.0.99.1");
    expect(busy.statusCode).toBe(503);
    expect(busy.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(busy.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(busy.body).toContain("503 Service Unavailable");
    // The API is not the pages' budget.
    expect((await fixture.app.inject({ url: "/healthz", remoteAddress: "192.0.99.1" })).statusCode).toBe(200);
  });
});
