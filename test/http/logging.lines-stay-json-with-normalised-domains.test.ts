/**
 * Log injection: whatever a client sends, each request log entry is one JSON line. The
 * path is logged as received (percent-encoding kept, so an encoded CR/LF stays `%0D%0A`),
 * header values never reach the log, and the domain is the normalised one the check
 * used, never the raw input.
 */
import { afterEach, expect, it } from "vitest";
import { capturedLogger, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
afterEach(() => fixture.close());

it("keeps one JSON line per entry, with encoded paths and normalised domains", async () => {
  const { lines, logger } = capturedLogger();
  // Every request's line (ACCESS_LOG=all): the sampled default writes a subset of the same lines.
  fixture = await openHttpFixture({ logger, accessLog: "all" });
  const { secret } = await fixture.newKey();

  await fixture.app.inject({
    url: "/domain/evil%0D%0A%7B%22level%22%3A60%7D.com",
    headers: { accept: "text/html" },
  });
  await fixture.app.inject({ url: "/nothing%0Ahere/\u2028", headers: { "user-agent": "a\u2028b" } });
  for (const domain of [" ExAmple.COM. ", "MÜNCHEN.de"]) {
    const headers = { authorization: `Bearer ${secret}` };
    await fixture.app.inject({ method: "POST", url: "/v2/", headers, payload: { domain } });
  }

  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(entries.length).toBe(lines.length);
  for (const line of lines) expect(line).not.toMatch(/[\r\n\u2028]/);
  const urls = entries.flatMap((entry) => {
    const req = entry.req as { url?: string } | undefined;
    return req?.url ? [req.url] : [];
  });
  expect(urls).toContain("/domain/evil%0D%0A%7B%22level%22%3A60%7D.com");
  expect(entries.some((entry) => entry.level === 60)).toBe(false);
  const domains = entries.flatMap((entry) => {
    const res = entry.res as { domain?: string } | undefined;
    return res?.domain ? [res.domain] : [];
  });
  expect(domains).toEqual(["example.com", "xn--mnchen-3ya.de"]);
});
