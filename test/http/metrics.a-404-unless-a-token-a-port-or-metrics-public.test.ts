/**
 * The default of `/metrics` (docs/api.md "Operations routes"): with neither METRICS_TOKEN, METRICS_PORT
 * nor METRICS_PUBLIC=on, the server started as `npm start` starts it serves no
 * `/metrics` (a problem JSON 404) and says at start-up how to serve it; METRICS_PUBLIC=on
 * opens it without a token, and METRICS_TOKEN still asks for its token.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { mailZones } from "../../harness/mail-zones.js";
import { loadConfig } from "../../src/config.js";
import { startServer } from "../../src/server.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";
import { capturedLogger } from "./helpers.js";

const TOKEN = "0123456789abcdef0123456789abcdef";
const HINT = "/metrics is not served: set METRICS_TOKEN, METRICS_PORT or METRICS_PUBLIC=on to serve it";

let dns: DnsTestServer;
let dir: string;
beforeAll(async () => {
  dns = await startDnsServer(mailZones([...CANARY_DOMAINS], "own-server"));
  dir = await mkdtemp(join(tmpdir(), "mailrisk-metrics-default-"));
});
afterAll(async () => {
  await dns.close();
  await rm(dir, { recursive: true, force: true });
});

/** A server on `env`: the status and problem code of `GET /metrics` (with `headers`), and whether the hint was logged. */
async function scrape(env: Record<string, string>, name: string, headers: Record<string, string> = {}) {
  const { lines, logger } = capturedLogger();
  const server = await startServer(
    loadConfig({
      TEST_NAMES: "on",
      DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}`,
      PORT: "0",
      DNS_SERVERS: dns.address,
      ...env,
    }),
    { stdout: new PassThrough(), logger },
  );
  try {
    const response = await fetch(`${server.url}/metrics`, { headers });
    const text = await response.text();
    return {
      status: response.status,
      body: text,
      hinted: lines.some((line) => (JSON.parse(line) as { msg?: string }).msg === HINT),
    };
  } finally {
    await server.close();
  }
}

it("answers 404 without a token, a port or METRICS_PUBLIC, and says at start-up how to serve it", async () => {
  const { status, body, hinted } = await scrape({}, "closed");
  expect(status).toBe(404);
  expect(JSON.parse(body)).toMatchObject({ code: "not_found" });
  expect(hinted).toBe(true);
});

it("serves it without a token with METRICS_PUBLIC=on", async () => {
  const { status, body, hinted } = await scrape({ METRICS_PUBLIC: "on" }, "public");
  expect(status).toBe(200);
  expect(body).toContain("mailrisk_http_requests_total");
  expect(hinted).toBe(false);
});

it("asks for METRICS_TOKEN when it is set, METRICS_PUBLIC or not", async () => {
  expect((await scrape({ METRICS_TOKEN: TOKEN, METRICS_PUBLIC: "on" }, "token")).status).toBe(401);
  const scraped = await scrape({ METRICS_TOKEN: TOKEN }, "token-sent", { authorization: `Bearer ${TOKEN}` });
  expect([scraped.status, scraped.hinted]).toEqual([200, false]);
});
