import { afterEach, expect, it } from "vitest";
import { HttpProblem } from "../../../src/http/http-problem.js";
import { renderErrorPage } from "../../../src/page-kit/error-page.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

let fixture: HttpFixture | undefined;
afterEach(() => fixture?.close());

it("answers an unknown result page with an HTML 404, an unknown API path still with problem JSON", async () => {
  fixture = await openHttpFixture();
  const page = await fixture.app.inject({ url: "/domain/a/b", headers: { accept: "text/html" } });
  expect(page.statusCode).toBe(404);
  expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
  expect(page.body).toMatch(/^<!doctype html>/);
  expect(page.body).toContain("404 Not Found");
  expect(page.headers["x-ratelimit-requests-remaining"]).toBeUndefined();

  const api = await fixture.app.inject({ url: "/v3/" });
  expect(api.statusCode).toBe(404);
  expect(api.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(api.json().code).toBe("not_found");
});

it("escapes what it shows of the problem", () => {
  const html = String(
    renderErrorPage(new HttpProblem("invalid_domain", `<script>alert("x")</script> & 'more'`)),
  );
  expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;");
  expect(html).not.toContain("<script>");
  expect(html).toContain("<title>400 Bad Request — mailrisk</title>");
});
