/**
 * TRUST_PROXY: behind a reverse proxy every request comes from the proxy's address, so
 * without it all browsers share one PAGE_RATE_LIMIT. With the proxy trusted, the client
 * named in X-Forwarded-For is limited (and logged); from an untrusted peer the header is
 * ignored, so a client cannot pick a fresh address per request.
 */
import { afterEach, expect, it } from "vitest";
import {
  capturedLogger,
  type FixtureOptions,
  type HttpFixture,
  openHttpFixture,
} from "../../http/helpers.js";

const PROXY = "10.0.0.5";
const HTML = { accept: "text/html" };
let fixture: HttpFixture | undefined;
afterEach(() => fixture?.close());

async function statuses(options: FixtureOptions, requests: { from: string; client: string }[]) {
  fixture = await openHttpFixture({ pageRateLimit: 2, ...options });
  const app = fixture.app;
  const answers: number[] = [];
  for (const { from, client } of requests) {
    const response = await app.inject({
      url: "/domain/example.com",
      remoteAddress: from,
      headers: { ...HTML, "x-forwarded-for": client },
    });
    answers.push(response.statusCode);
  }
  return answers;
}

const twoClientsThroughTheProxy = [
  { from: PROXY, client: "203.0.113.1" },
  { from: PROXY, client: "203.0.113.1" },
  { from: PROXY, client: "203.0.113.2" },
  { from: PROXY, client: "203.0.113.2" },
  { from: PROXY, client: "203.0.113.1" },
];

it("without TRUST_PROXY, every client behind the proxy shares its address's limit", async () => {
  expect(await statuses({}, twoClientsThroughTheProxy)).toEqual([200, 200, 429, 429, 429]);
});

it.each([
  ["the proxy's address", [PROXY]],
  ["a range holding it", ["10.0.0.0/8"]],
  ["one hop", 1],
] as const)("trusting %s, each client has its own limit", async (_, trustProxy) => {
  const trusted = typeof trustProxy === "number" ? trustProxy : [...trustProxy];
  expect(await statuses({ trustProxy: trusted }, twoClientsThroughTheProxy)).toEqual([
    200, 200, 200, 200, 429,
  ]);
});

it("ignores X-Forwarded-For from a peer that is not trusted", async () => {
  const spoofing = ["198.51.100.1", "198.51.100.2", "198.51.100.3"].map((client) => ({
    from: "192.0.2.9",
    client,
  }));
  expect(await statuses({ trustProxy: [PROXY] }, spoofing)).toEqual([200, 200, 429]);
});

it("logs the client address behind a trusted proxy", async () => {
  const { lines, logger } = capturedLogger();
  fixture = await openHttpFixture({ trustProxy: [PROXY], logger, accessLog: "all" });
  await fixture.app.inject({
    url: "/healthz",
    remoteAddress: PROXY,
    headers: { "x-forwarded-for": "203.0.113.7" },
  });
  const received = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === "incoming request");
  expect(received?.req.remoteAddress).toBe("203.0.113.7");
});
