import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
let secret: string;
beforeEach(async () => {
  fixture = await openHttpFixture();
  secret = (await fixture.newKey({ quota: 100 })).secret;
});
afterEach(() => fixture.close());

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

describe("GET /", () => {
  it("checks the `email` query and answers the simple record", async () => {
    const response = await fixture.app.inject({
      url: "/?email=Jane.Doe%40Example.COM",
      headers: { "x-gateway-key": secret },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.json()).toMatchObject({ domain: "example.com", disposable: false });
    expect(fixture.checker.calls).toEqual([{ kind: "email", domain: "example.com", localPart: "Jane.Doe" }]);
  });

  it("checks the `domain` query too, and prefers a non-empty `email`", async () => {
    const domain = await fixture.app.inject({
      url: "/?domain=example.org",
      headers: { "x-gateway-key": secret },
    });
    expect(domain.json().domain).toBe("example.org");
    const both = await fixture.app.inject({
      url: "/?domain=example.org&email=a@example.net",
      headers: { "x-gateway-key": secret },
    });
    expect(both.json().domain).toBe("example.net");
  });

  it("answers repeated or missing query fields with 400", async () => {
    for (const [url, code] of [
      ["/?email=a@example.com&email=b@example.com", "invalid_email"],
      ["/?domain=a.example&domain=b.example", "invalid_domain"],
      ["/", "missing_input"],
      ["/?email=", "missing_input"],
      ["/?email=a%20b@example.com", "invalid_email"],
    ] as const) {
      const response = await fixture.app.inject({ url, headers: { "x-gateway-key": secret } });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().code, url).toBe(code);
    }
  });

  it("serves the home page to a browser without query, with no key and no quota", async () => {
    const response = await fixture.app.inject({ url: "/", headers: { accept: BROWSER_ACCEPT } });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(response.headers.vary).toBe("Accept");
    expect(response.headers["x-ratelimit-requests-remaining"]).toBeUndefined();
    expect(response.body).toContain("<form");
    // Self-contained: no script, and every link, form and source stays on this server (or is data:).
    expect(response.body).not.toMatch(/<script\b|\b(?:src|href|action)="(?!\/|data:)/);
  });

  it("follows the API rules for a browser that sends a query, answering its 401 as an HTML page", async () => {
    const withQuery = await fixture.app.inject({
      url: "/?domain=example.com",
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(withQuery.statusCode).toBe(401);
    expect(withQuery.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(withQuery.body).toContain("X-Gateway-Key");
    expect(withQuery.headers["x-ratelimit-requests-remaining"]).toBe("0");
    for (const accept of [undefined, "*/*", "application/json", "text/html;q=0.5, application/json"]) {
      const response = await fixture.app.inject({ url: "/", headers: accept ? { accept } : {} });
      expect(response.statusCode, accept).toBe(401);
      expect(response.headers["content-type"], accept).toMatch(/^application\/problem\+json/);
      expect(response.headers["x-ratelimit-requests-remaining"]).toBe("0");
    }
  });

  it("answers HEAD like GET without a body", async () => {
    const response = await fixture.app.inject({
      method: "HEAD",
      url: "/?domain=example.com",
      headers: { "x-gateway-key": secret },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe("");
    expect(response.headers["x-ratelimit-requests-remaining"]).toBe("99");
  });
});
