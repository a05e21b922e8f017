/**
 * The result pages and the home page over `inject` (docs/api.md "Result pages"): status codes,
 * canonical redirects, the search form's redirect, escaping of everything shown,
 * security headers scoped to the pages, the record cache without quota, and the
 * per-address rate limit with its 429 page.
 */

import { afterEach, describe, expect, it } from "vitest";
import { configWith } from "../../../harness/config.js";
import { mxFacts } from "../../../harness/sample-facts.js";
import { sampleRecord } from "../../../harness/sample-record.js";
import type { AppStore } from "../../../src/app.js";
import type { CheckRecord } from "../../../src/core/record.js";
import { TypoIndex } from "../../../src/core/typo.js";
import { loadDomainLists } from "../../../src/data/read-domain-lists.js";
import { CachingChecker } from "../../../src/service/checking/cached-checker.js";
import { type FixtureOptions, fakeChecker, type HttpFixture, openHttpFixture } from "../../http/helpers.js";

/** The checker's settings from CONFIG_TABLE's defaults. */
const { pageLookupConcurrency, webhookWatchDays, testNames } = configWith();

const HTML = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

let fixture: HttpFixture | undefined;
afterEach(() => fixture?.close());

async function open(options: FixtureOptions = {}): Promise<HttpFixture> {
  fixture = await openHttpFixture(options);
  return fixture;
}

const page = (url: string, remoteAddress = "127.0.0.1") =>
  (fixture as HttpFixture).app.inject({ url, headers: HTML, remoteAddress });

const answering = (overrides: Partial<CheckRecord>) =>
  fakeChecker((input) => ({
    record: sampleRecord({ domain: input.domain, base_domain: input.domain, ...overrides }),
    cache: "hit",
  }));

const NXDOMAIN: Partial<CheckRecord> = {
  valid: false,
  block: true,
  risk: 100,
  text: "Domain does not exist",
  reason: "NXDOMAIN",
  mx_host: "",
  mx_ip: "",
  mx_info: "Domain does not exist (NXDOMAIN)",
  domain_age_days: null,
  domain_created_at: null,
};

describe("a result page", () => {
  it("shows the verdict, risk with level, details, API examples and recent domains, with or without a trailing slash", async () => {
    const { store } = await open({
      checker: answering({ email_provider: "Google Workspace", possible_typo: ["gmail.com"] }),
    });
    await store.recent.addRecent([{ domain: "recent.example", checkedAt: new Date() }]);
    for (const url of ["/domain/shop.example", "/domain/shop.example/"]) {
      const response = await page(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      const body = response.body;
      expect(body).toContain("<title>shop.example: Allow, risk 10/100 — mailrisk</title>");
      expect(body).toMatch(/<meta name="description" content="shop\.example: Allow sign-ups\./);
      expect(body).toContain('<p class="badge" id="decision">Allow</p>');
      expect(body).toContain("10 / 100");
      expect(body).toContain(">LOW<");
      expect(body).toMatch(/<meter [^>]*value="10"/);
      expect(body).toContain("mx.example.com");
      expect(body).toContain("192.0.2.25");
      expect(body).toContain("Google Workspace");
      expect(body).toContain('href="/domain/gmail.com"');
      expect(body).toContain("1995-08-14");
      expect(body).toContain("9,000 days");
      expect(body).toContain("X-Gateway-Key: YOUR_API_KEY");
      expect(body).toContain("Authorization: Bearer YOUR_API_KEY");
      expect(body).toContain("-d domain=shop.example");
      expect(body).toContain('href="/domain/recent.example"');
    }
  });

  it("labels the risk levels at their boundaries", async () => {
    for (const [risk, level] of [
      [29, "LOW"],
      [30, "MEDIUM"],
      [69, "MEDIUM"],
      [70, "HIGH"],
    ] as const) {
      await open({ checker: answering({ risk, block: risk >= 70 }) });
      const body = (await page("/domain/level.example")).body;
      expect(body, String(risk)).toContain(
        `${risk} / 100 <span class="level ${level.toLowerCase()}">${level}</span>`,
      );
      await fixture?.close();
      fixture = undefined;
    }
  });

  it("answers a domain that does not exist with a 404 page that says so", async () => {
    await open({ checker: answering(NXDOMAIN) });
    const response = await page("/domain/does-not-exist.example");
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain("This domain does not exist");
    expect(response.body).toContain('<p class="badge" id="decision">Block</p>');
    expect(response.body).toContain('<meta name="robots" content="noindex">');
  });

  it("redirects a name that is not in its normal form, an email address to its domain's page", async () => {
    const { checker } = await open();
    for (const [url, location] of [
      ["/domain/Shop.Example.", "/domain/shop.example"],
      ["/domain/m%C3%BCnchen.de", "/domain/xn--mnchen-3ya.de"],
      ["/domain/Someone.Private%40Shop.example", "/domain/shop.example"],
    ]) {
      const response = await page(url as string);
      expect(response.statusCode, url).toBe(301);
      expect(response.headers.location).toBe(location);
    }
    expect(checker.calls).toEqual([]);
  });

  it("answers a malformed domain with a 400 page that shows the input escaped, and checks nothing", async () => {
    const { checker } = await open();
    for (const url of [
      "/domain/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
      "/domain/%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E.example",
      "/domain/1.2.3.4",
      "/domain/not%20a%20domain",
      `/domain/${"a".repeat(330)}.example`,
    ]) {
      const response = await page(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.body).not.toMatch(/<script>|<img/);
      expect(response.headers["content-security-policy"]).toContain("default-src 'none'");
    }
    expect(checker.calls).toEqual([]);
    const bad = await page("/domain/%E0%A4%A");
    expect(bad.statusCode).toBe(400);
    expect(bad.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(bad.headers["content-security-policy"]).toContain("default-src 'none'");
  });

  it("escapes every value of the record and of the recent list", async () => {
    const hostile = `<script>alert("x")</script>`;
    const { store } = await open({
      checker: answering({
        text: hostile,
        reason: `"><img src=x onerror=alert(1)>`,
        mx_host: hostile,
        mx_info: hostile,
        email_provider: hostile,
        disposable_provider: hostile,
        possible_typo: [`"><script>x</script>`],
      }),
    });
    await store.recent.addRecent([{ domain: `x"><script>alert(1)</script>`, checkedAt: new Date() }]);
    const body = (await page("/domain/hostile.example")).body;
    expect(body).not.toMatch(/<script|<img/);
    expect(body).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(body).toContain('href="/domain/x%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E"');
  });

  it("uses the cached record while fresh and never touches an API key's quota", async () => {
    let lookups = 0;
    const lists = loadDomainLists();
    const caching = (store: HttpFixture["store"]) =>
      new CachingChecker({
        records: store.records,
        lists,
        typos: new TypoIndex(lists.popular),
        lookup: async (domain) => {
          lookups++;
          return { facts: mxFacts(domain) };
        },
        clock: () => new Date(),
        ttlSeconds: 3600,
        pageLookupConcurrency,
        webhookWatchDays,
        testNames,
      });
    let usageCalls = 0;
    const counting = (store: AppStore): AppStore => ({
      ...store,
      usage: {
        ...store.usage,
        authorize: (...args) => {
          usageCalls++;
          return store.usage.authorize(...args);
        },
      },
    });
    let checker: CachingChecker | undefined;
    const { store } = await open({
      wrapStore: counting,
      checker: fakeChecker((input) => (checker as CachingChecker).check(input)),
    });
    checker = caching(store);
    expect((await page("/domain/cached.example")).statusCode).toBe(200);
    expect((await page("/domain/cached.example")).statusCode).toBe(200);
    expect(lookups).toBe(1);
    expect(usageCalls).toBe(0);
  });
});

describe("the home page", () => {
  it("has the search form, the recently checked domains and the API section", async () => {
    const { store } = await open();
    await store.recent.addRecent([
      { domain: "first.example", checkedAt: new Date("2025-01-01T00:00:00Z") },
      { domain: "second.example", checkedAt: new Date("2025-01-02T00:00:00Z") },
    ]);
    const response = await page("/");
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('<form class="search" method="post" action="/domain/"');
    expect(response.body).toMatch(/href="\/domain\/second\.example"[\s\S]*href="\/domain\/first\.example"/);
    expect(response.body).toContain("Use the API");
  });

  it("sends a search by email address or domain to the domain's page, keeping only the domain", async () => {
    const { app } = await open();
    const search = (q: string) =>
      app.inject({
        method: "POST",
        url: "/domain/",
        payload: { q },
        headers: { "content-type": "application/json" },
      });
    const byEmail = await app.inject({
      method: "POST",
      url: "/domain/",
      headers: { ...HTML, "content-type": "application/x-www-form-urlencoded" },
      payload: "q=Jane.Doe%40Shop.Example",
    });
    expect(byEmail.statusCode).toBe(303);
    expect(byEmail.headers.location).toBe("/domain/shop.example");
    expect((await search(" shop.example ")).headers.location).toBe("/domain/shop.example");
    expect((await search("")).headers.location).toBe("/");
    const invalid = await search("no domain");
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect((await app.inject({ url: "/domain/", headers: HTML })).headers.location).toBe("/");
  });
});

describe("pages and API apart", () => {
  it("sends security headers on pages only", async () => {
    const { app } = await open();
    const home = await page("/");
    expect(home.headers["content-security-policy"]).toMatch(
      /^default-src 'none'; ?style-src 'sha256-[^']+'; ?img-src data:; ?form-action 'self'; ?frame-ancestors 'none'; ?base-uri 'none'$/,
    );
    expect(home.headers["x-content-type-options"]).toBe("nosniff");
    expect(home.headers["x-frame-options"]).toBe("DENY");
    expect(home.headers["referrer-policy"]).toBe("same-origin");
    const api = await app.inject({ url: "/?domain=example.com" });
    expect(api.statusCode).toBe(401);
    expect(api.headers["content-security-policy"]).toBeUndefined();
    expect((await app.inject({ url: "/healthz" })).headers["content-security-policy"]).toBeUndefined();
  });

  it("limits page requests per client address with a 429 page and Retry-After, and leaves the API alone", async () => {
    const { app } = await open({ pageRateLimit: 3 });
    for (const url of ["/", "/domain/a.example", "/domain/b.example"]) {
      expect((await page(url)).statusCode, url).not.toBe(429);
    }
    for (const url of ["/domain/c.example", "/domain/", "/domain/x/y"]) {
      const limited = await page(url);
      expect(limited.statusCode, url).toBe(429);
      expect(limited.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(limited.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
      expect(limited.headers["content-security-policy"]).toContain("default-src 'none'");
      expect(limited.body).toContain("429 Too Many Requests");
      expect(Object.keys(limited.headers).filter((name) => name.startsWith("x-ratelimit"))).toEqual([]);
    }
    expect((await page("/domain/c.example", "192.0.2.77")).statusCode).toBe(200);
    expect((await app.inject({ url: "/healthz", remoteAddress: "127.0.0.1" })).statusCode).toBe(200);
    const { secret } = await (fixture as HttpFixture).newKey();
    const api = await app.inject({ url: "/?domain=example.com", headers: { "x-gateway-key": secret } });
    expect(api.statusCode).toBe(200);
  });
});
