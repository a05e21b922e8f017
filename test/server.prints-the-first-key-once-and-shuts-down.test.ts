import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterEach, beforeEach, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { startServer } from "../src/server.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-server-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function start() {
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
    HOST: "127.0.0.1",
    PORT: "0",
    DNS_SERVERS: "127.0.0.1:9",
  });
  const stdout = new PassThrough();
  let printed = "";
  stdout.on("data", (chunk) => {
    printed += chunk;
  });
  const server = await startServer(config, { stdout, logger: pino({ level: "silent" }) });
  return { server, printed: () => printed };
}

it("creates and prints a free key on an empty database, once, and serves with it", async () => {
  const first = await start();
  const secret = /\b(mr_\w+)\b/.exec(first.printed())?.[1];
  expect(secret).toBeDefined();
  expect(first.printed()).toContain("shown only this once");
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
  expect(missing.headers.get("x-ratelimit-requests-limit")).toBe("1000");
  expect(missing.headers.get("x-ratelimit-requests-remaining")).toBe("999");
  await second.server.close();
  await expect(fetch(`${second.server.url}/healthz`)).rejects.toThrow();
});
