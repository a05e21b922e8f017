/**
 * The pages' API examples and caching (docs/api.md "Result pages"): the curl examples name
 * PUBLIC_URL, or `$MAILRISK_URL` without it, never the request's Host header; the home
 * page and a settled result page may be kept a minute, a result made while DNS failed
 * for the time being and every error page not at all.
 */
import { afterEach, describe, expect, it } from "vitest";
import { sampleRecord } from "../../../harness/sample-record.js";
import { type FixtureOptions, fakeChecker, type HttpFixture, openHttpFixture } from "../../http/helpers.js";

const HTML = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
const EVIL = { ...HTML, host: "evil.example", "x-forwarded-host": "evil.example" };

let fixture: HttpFixture | undefined;
afterEach(() => fixture?.close());

async function open(options: FixtureOptions = {}): Promise<HttpFixture> {
  fixture = await openHttpFixture(options);
  return fixture;
}

describe("the API examples", () => {
  it("name $MAILRISK_URL without PUBLIC_URL, whatever the Host header says", async () => {
    const { app } = await open();
    for (const url of ["/", "/domain/shop.example"]) {
      const { body } = await app.inject({ url, headers: EVIL });
      expect(body, url).not.toContain("evil.example");
      expect(body, url).toContain("curl -s &quot;$MAILRISK_URL/?domain=");
      expect(body, url).toContain("curl -s &quot;$MAILRISK_URL/v2/&quot;");
      expect(body, url).toContain("Set <code>MAILRISK_URL</code>");
    }
  });

  it("name PUBLIC_URL when it is set", async () => {
    const { app } = await open({ publicUrl: "https://mailrisk.example.org/checks" });
    const { body } = await app.inject({ url: "/domain/shop.example", headers: EVIL });
    expect(body).not.toContain("evil.example");
    expect(body).toContain("curl -s &quot;https://mailrisk.example.org/checks/?domain=shop.example&quot;");
    expect(body).toContain("curl -s &quot;https://mailrisk.example.org/checks/v2/&quot;");
    expect(body).not.toContain("MAILRISK_URL");
  });
});

describe("Cache-Control", () => {
  it("lets the home page and a settled result page be kept a minute", async () => {
    const { app } = await open();
    for (const [url, status] of [
      ["/", 200],
      ["/domain/shop.example", 200],
    ] as const) {
      const response = await app.inject({ url, headers: HTML });
      expect(response.statusCode, url).toBe(status);
      expect(response.headers["cache-control"], url).toBe("public, max-age=60");
    }
  });

  it("keeps no result made while DNS failed for the time being", async () => {
    const { app } = await open({
      checker: fakeChecker((input) => ({
        record: sampleRecord({ domain: input.domain, base_domain: input.domain, reason: "DNS timeout" }),
        cache: "miss",
        status: "dns_timeout",
      })),
    });
    const response = await app.inject({ url: "/domain/slow.example", headers: HTML });
    expect(response.headers["cache-control"]).toBe("no-store");
  });

  it("keeps no error page: 400, 404, 413, 429 and an API error shown to a browser", async () => {
    const { app } = await open({ pageRateLimit: 8 });
    const answers = [
      await app.inject({ url: "/domain/not_a_domain!", headers: HTML }),
      await app.inject({ url: "/domain/a/b/c", headers: HTML }),
      await app.inject({
        method: "POST",
        url: "/domain/",
        headers: { ...HTML, "content-type": "application/x-www-form-urlencoded" },
        payload: `q=${"a".repeat(20_000)}`,
      }),
      await app.inject({ url: "/?domain=shop.example", headers: HTML }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([400, 404, 413, 401]);
    for (const answer of answers) {
      expect(answer.headers["content-type"]).toMatch(/^text\/html/);
      expect(answer.headers["cache-control"], String(answer.statusCode)).toBe("no-store");
    }
    let limited = await app.inject({ url: "/domain/shop.example", headers: HTML });
    for (let i = 0; i < 10 && limited.statusCode !== 429; i++) {
      limited = await app.inject({ url: "/domain/shop.example", headers: HTML });
    }
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["cache-control"]).toBe("no-store");
  });
});
