/**
 * `GET /widget.js` over a real socket (docs/clients.md, docs/api.md "Operations routes"): the script
 * as text/javascript with a strong ETag of its content and a day's cache, 304 on a
 * matching `If-None-Match`, at most 10 KB gzipped, and no address in it but the
 * service's own (it derives that from its `<script src>`).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchesEtag, WIDGET_FILE } from "../../src/http/routes/widget.js";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

const MAX_GZIPPED_BYTES = 10 * 1024;

let fixture: HttpFixture;
let base: string;

beforeAll(async () => {
  fixture = await openHttpFixture();
  base = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
});

afterAll(async () => {
  await fixture?.close();
});

describe("GET /widget.js", () => {
  it("serves the widget file as JavaScript with a strong ETag of its content and a day's cache", async () => {
    const response = await fetch(`${base}/widget.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.equals(await readFile(WIDGET_FILE))).toBe(true);
    const digest = createHash("sha256").update(body).digest("base64url");
    expect(response.headers.get("etag")).toBe(`"${digest}"`);
    // Served to pages of any origin: no key, no page security headers that would refuse it.
    expect(response.headers.get("cross-origin-resource-policy")).toBeNull();
    expect(response.headers.get("x-ratelimit-requests-remaining")).toBeNull();
  });

  it("answers 304 with no body to a matching If-None-Match, and the script to another", async () => {
    const etag = (await fetch(`${base}/widget.js`)).headers.get("etag") as string;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const response = await fetch(`${base}/widget.js`, { headers: { "if-none-match": ifNoneMatch } });
      expect(response.status, ifNoneMatch).toBe(304);
      expect(response.headers.get("etag")).toBe(etag);
      expect(response.headers.get("cache-control")).toBe("public, max-age=86400");
      expect(await response.text()).toBe("");
    }
    const stale = await fetch(`${base}/widget.js`, { headers: { "if-none-match": '"an-older-version"' } });
    expect(stale.status).toBe(200);
    expect((await stale.text()).length).toBeGreaterThan(1000);
  });

  it("answers HEAD with the headers and 405 to other methods", async () => {
    const head = await fetch(`${base}/widget.js`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toMatch(/^"[\w-]{43}"$/);
    const post = await fetch(`${base}/widget.js`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("content-type")).toContain("application/problem+json");
  });

  it(`is at most ${MAX_GZIPPED_BYTES} bytes gzipped and names no host: it asks only the service that served it`, async () => {
    const body = Buffer.from(await (await fetch(`${base}/widget.js`)).arrayBuffer());
    expect(gzipSync(body, { level: 9 }).length).toBeLessThanOrEqual(MAX_GZIPPED_BYTES);
    const text = body.toString("utf8");
    expect(text).not.toMatch(/https?:\/\//);
    expect(text).not.toMatch(/\bimport\b|\brequire\(/);
    expect(text).toContain('new URL("v2/", script.src)');
  });
});

describe("matchesEtag", () => {
  it.each([
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ["*", true],
    ['"abd"', false],
    ["abc", false],
  ])("If-None-Match %s → %s", (header, expected) => {
    expect(matchesEtag(header, '"abc"')).toBe(expected);
  });
});
