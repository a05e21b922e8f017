import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { serverArguments } from "../harness/entry-points.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-main-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it("starts from the environment, prints the first key, and exits 0 on SIGTERM", async () => {
  const child = spawn(process.execPath, serverArguments(), {
    env: {
      ...process.env,
      DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      DNS_SERVERS: "127.0.0.1:9",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  while (!/Server listening at (http:\/\/[\d.:]+)/.test(output)) {
    if (child.exitCode !== null) throw new Error(output);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = /Server listening at (http:\/\/[\d.:]+)/.exec(output)?.[1];
  expect(output).toMatch(/mr_\w{32}/);
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
  expect(output).toContain("shutting down");
});

it("names the cause when the database cannot be reached at start, and exits 1", async () => {
  const child = spawn(process.execPath, serverArguments(), {
    env: { ...process.env, DATABASE_URL: "postgres://mailrisk:secret@127.0.0.1:1/mailrisk", PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  expect(code).toBe(1);
  expect(stderr).toMatch(/^mailrisk: the database is unavailable: connect ECONNREFUSED 127\.0\.0\.1:1/);
  expect(stderr).not.toContain("secret");
}, 30_000);

it("exits 2 on a configuration error, naming the setting and never echoing its value", async () => {
  const child = spawn(process.execPath, serverArguments(), {
    env: { ...process.env, DATABASE_URL: "postgres://mailrisk:secret@[::1", PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  expect(code).toBe(2);
  expect(stderr).toMatch(/^mailrisk: configuration error: .*DATABASE_URL/);
  expect(stderr).not.toContain("secret");
}, 30_000);
