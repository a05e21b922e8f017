/**
 * `npm start` as a supervisor or a terminal runs it: npm runs its script through a shell,
 * and a shell that does not exec leaves the server orphaned when npm gets SIGTERM. The
 * script execs the server (package.json), so SIGTERM to npm reaches the server, which
 * shuts down gracefully. Runs the built server (`dist/`, made by `npm ci`).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startPace } from "../harness/machine-pace.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-npm-start-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

it("stops the server when npm start gets SIGTERM", async () => {
  expect(existsSync(join(ROOT, "dist/main.js")), "dist/ is built by npm ci (npm run build)").toBe(true);
  const npm = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      DNS_SERVERS: "127.0.0.1:9",
      AGE_LOOKUP: "off",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  npm.stdout.on("data", (chunk) => {
    output += chunk;
  });
  npm.stderr.on("data", (chunk) => {
    output += chunk;
  });
  const npmExited = new Promise<void>((resolve) => npm.on("exit", () => resolve()));
  const listening = () =>
    output
      .split("\n")
      .filter((line) => line.includes("Server listening at"))
      .map((line) => (JSON.parse(line) as { pid: number }).pid);
  // How long to wait before saying so: a quiet machine's figure, stretched by its pace now.
  const pace = startPace();
  const deadline = Date.now() + pace.bound(30_000);
  while (listening().length === 0) {
    if (npm.exitCode !== null || Date.now() > deadline) throw new Error(`no server listening:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const [server] = listening() as [number];
  try {
    npm.kill("SIGTERM");
    await npmExited;
    const stopped = Date.now() + pace.bound(10_000);
    while (alive(server) && Date.now() < stopped) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(server), `server ${server} still running:\n${output}`).toBe(false);
    expect(output).toContain('"msg":"stopped"');
  } finally {
    if (alive(server)) process.kill(server, "SIGKILL");
  }
}, 180_000);
