// /readyz waits for the resolver canary's first round: its DNS time-out (the default) is stretched by the machine's pace (harness/machine-pace.ts), so that the loopback
// resolver answers within it on a loaded machine too.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../harness/dns-server.js";
import { startPace } from "../harness/machine-pace.js";
import { mailZones } from "../harness/mail-zones.js";
import { loadConfig } from "../src/config.js";
import { startServer } from "../src/server.js";
import { CANARY_DOMAINS } from "../src/service/checking/create-checker.js";

let dir: string;
/** A resolver that tells the truth about the canary domains, so the server is ready. */
let dns: DnsTestServer;
beforeAll(async () => {
  dns = await startDnsServer(mailZones(CANARY_DOMAINS, "own-server"));
});
afterAll(() => dns.close());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-server-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function start() {
  const config = loadConfig({
    TEST_NAMES: "on",
    LIST_SOURCES: "off",
    DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
    HOST: "127.0.0.1",
    PORT: "0",
    DNS_SERVERS: dns.address,
    // At most the 60 s the configuration takes.
    DNS_TIMEOUT_MS: String(Math.min(60_000, Math.round(startPace().bound(loadConfig({}).dnsTimeoutMs)))),
  });
  const stdout = new PassThrough();
  let printed = "";
  stdout.on("data", (chunk) => {
    printed += chunk;
  });
  const server = await startServer(config, { stdout, logger: pino({ level: "silent" }) });
  return { server, printed: () => printed };
}

it("creates and prints a key on the unlimited plan on an empty database, once, and serves with it", async () => {
  const first = await start();
  const secret = /\b(mr_\w+)\b/.exec(first.printed())?.[1];
  expect(secret).toBeDefined();
  expect(first.printed()).toContain("shown only this once");
  expect(first.printed()).toContain('the built-in plan "unlimited"');
  expect(first.printed()).toMatch(/no quota/);
  const ready = await fetch(`${first.server.url}/readyz`);
  expect(ready.status).toBe(200);
  const refused = await fetch(`${first.server.url}/?domain=nonexistent.invalid`, {
    headers: { "x-gateway-key": "nope" },
  });
  expect(refused.status).toBe(401);
  const health = await fetch(`${first.server.url}/healthz`);
  expect(health.status).toBe(200);
  await first.server.close();

  const second = await start();
  expect(second.printed()).toBe("");
  const missing = await fetch(`${second.server.url}/v2/`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}` },
  });
  expect(missing.status).toBe(400);
  expect(missing.headers.get("x-ratelimit-requests-limit")).toBe("2147483647");
  expect(missing.headers.get("x-ratelimit-requests-remaining")).toBe("2147483647");
  const usage = await fetch(`${second.server.url}/v2/usage`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  expect(await usage.json()).toMatchObject({ plan: "unlimited", limit: null, used: 1, remaining: null });
  await second.server.close();
  await expect(fetch(`${second.server.url}/healthz`)).rejects.toThrow();
}, 60_000);

it("serves the admin API when ADMIN_TOKEN is set, and refuses to start with a short one", async () => {
  expect(() => loadConfig({ ADMIN_TOKEN: "too-short" })).toThrow(/at least 32 characters/);
  const token = "t".repeat(32);
  const config = loadConfig({
    TEST_NAMES: "on",
    LIST_SOURCES: "off",
    DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
    PORT: "0",
    DNS_SERVERS: "127.0.0.1:9",
    ADMIN_TOKEN: token,
  });
  const server = await startServer(config, { stdout: new PassThrough(), logger: pino({ level: "silent" }) });
  try {
    const keys = await fetch(`${server.url}/admin/keys`, { headers: { authorization: `Bearer ${token}` } });
    expect(keys.status).toBe(200);
    expect(await keys.json()).toMatchObject([{ plan: "unlimited", name: "first key" }]);
    const wrong = await fetch(`${server.url}/admin/keys`, {
      headers: { authorization: `Bearer ${"u".repeat(32)}` },
    });
    expect(wrong.status).toBe(401);
  } finally {
    await server.close();
  }
});
