/**
 * METRICS_TOKEN and METRICS_PORT (docs/api.md "Operations routes"): /metrics behind a bearer token
 * compared like the admin token, or on a port of its own and not on PORT — in-process
 * here, and with `serve --workers 2` the primary summing both workers' counters.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { mailZones } from "../../harness/mail-zones.js";
import { requestOnNewConnection, startServiceProcess } from "../../harness/service-process.js";
import { loadConfig } from "../../src/config.js";
import { buildMetricsApp } from "../../src/http/metrics-server.js";
import { startServer } from "../../src/server.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

const TOKEN = "metrics-token-0123456789abcdefghijklmnop";

/** A port nothing listens on right now (METRICS_PORT takes no 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function requestsCounted(text: string, route: string): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("mailrisk_http_requests_total{") && line.includes(`route="${route}"`)) {
      total += Number(line.split(" ").pop());
    }
  }
  return total;
}

describe("METRICS_TOKEN on the main port", () => {
  let fixture: HttpFixture;
  afterEach(() => fixture.close());

  it.each([
    ["no Authorization header", undefined, "missing_metrics_token", 'Bearer realm="mailrisk-metrics"'],
    [
      "another token",
      `Bearer ${TOKEN.replace(/.$/, "X")}`,
      "invalid_metrics_token",
      'Bearer realm="mailrisk-metrics", error="invalid_token"',
    ],
    ["an empty Bearer", "Bearer", "missing_metrics_token", 'Bearer realm="mailrisk-metrics"'],
    [
      "another scheme (Basic)",
      `Basic ${btoa(`x:${TOKEN}`)}`,
      "wrong_auth_scheme",
      'Bearer realm="mailrisk-metrics"',
    ],
  ])("refuses %s with 401 problem JSON", async (_, authorization, code, challenge) => {
    fixture = await openHttpFixture({ metricsRoute: { token: TOKEN } });
    const response = await fixture.app.inject({
      url: "/metrics",
      headers: authorization === undefined ? {} : { authorization },
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers["content-type"]).toContain("application/problem+json");
    expect(response.headers["www-authenticate"]).toBe(challenge);
    expect(response.json().code).toBe(code);
    expect(response.body).not.toContain("mailrisk_");
  });

  it("answers the metrics to the token, and leaves the other ops routes open", async () => {
    fixture = await openHttpFixture({ metricsRoute: { token: TOKEN } });
    const response = await fixture.app.inject({
      url: "/metrics",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain("mailrisk_http_requests_total");
    expect((await fixture.app.inject({ url: "/healthz" })).statusCode).toBe(200);
  });

  it("serves no /metrics on the app when METRICS_PORT serves them", async () => {
    fixture = await openHttpFixture({ metricsRoute: false });
    const response = await fixture.app.inject({ url: "/metrics" });
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe("not_found");
  });
});

describe("the metrics app of METRICS_PORT", () => {
  it("serves /metrics only, with the token, and problem JSON for anything else", async () => {
    const source = { contentType: "text/plain; version=0.0.4; charset=utf-8", metrics: async () => "up 1\n" };
    const app = await buildMetricsApp(source, TOKEN);
    try {
      const ok = await app.inject({ url: "/metrics", headers: { authorization: `Bearer ${TOKEN}` } });
      expect([ok.statusCode, ok.body]).toEqual([200, "up 1\n"]);
      expect((await app.inject({ url: "/metrics" })).json().code).toBe("missing_metrics_token");
      const elsewhere = await app.inject({ url: "/v2/usage" });
      expect([elsewhere.statusCode, elsewhere.json().code]).toEqual([404, "not_found"]);
      const post = await app.inject({ method: "POST", url: "/metrics" });
      expect([post.statusCode, post.headers.allow]).toEqual([405, "GET, HEAD"]);
    } finally {
      await app.close();
    }
  });
});

describe("METRICS_PORT over real sockets", () => {
  let dns: DnsTestServer;
  let dir: string;
  beforeAll(async () => {
    dns = await startDnsServer(mailZones([...CANARY_DOMAINS, "example-shop.com"], "own-server"));
    dir = await mkdtemp(join(tmpdir(), "mailrisk-metrics-"));
  });
  afterAll(async () => {
    await dns.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("in one process: /metrics on METRICS_PORT (with the token), not on PORT", async () => {
    const metricsPort = await freePort();
    const config = loadConfig({
      TEST_NAMES: "on",
      LIST_SOURCES: "off",
      DATABASE_URL: `sqlite:${join(dir, "one.db")}`,
      PORT: "0",
      METRICS_PORT: String(metricsPort),
      METRICS_TOKEN: TOKEN,
      DNS_SERVERS: dns.address,
    });
    const server = await startServer(config, {
      stdout: new PassThrough(),
      logger: pino({ level: "silent" }),
    });
    try {
      const main = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(main.status).toBe(404);
      await main.arrayBuffer();
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      expect((await fetch(metricsUrl)).status).toBe(401);
      const scraped = await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(scraped.status).toBe(200);
      expect(requestsCounted(await scraped.text(), "/healthz")).toBe(0);
      await (await fetch(`${server.url}/healthz`)).arrayBuffer();
      const again = await (await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
      expect(requestsCounted(again, "/healthz")).toBe(1);
    } finally {
      await server.close();
    }
    // Closed with the server.
    await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
  });

  it("with serve --workers 2: the primary serves METRICS_PORT and sums both workers' counters", async () => {
    const metricsPort = await freePort();
    const databaseUrl = `sqlite:${join(dir, "cluster.db")}`;
    const service = await startServiceProcess({
      workers: 2,
      env: { DATABASE_URL: databaseUrl, METRICS_PORT: String(metricsPort), DNS_SERVERS: dns.address },
    });
    try {
      const sent = 40;
      for (let i = 0; i < sent; i++) {
        // A new connection each, so the primary hands them to both workers in turn.
        expect((await requestOnNewConnection(`${service.url}/healthz`)).status).toBe(200);
      }
      const main = await fetch(`${service.url}/metrics`);
      expect(main.status).toBe(404);
      await main.arrayBuffer();
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(requestsCounted(text, "/healthz")).toBe(sent);
      expect(text).toContain("mailrisk_record_cache_total");
    } finally {
      expect(await service.stop()).toBe(0);
    }
    await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
  });
});
