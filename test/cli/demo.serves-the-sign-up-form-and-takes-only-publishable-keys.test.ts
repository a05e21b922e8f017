/**
 * `mailrisk demo` (docs/clients.md): as a process of its own it serves the sign-up form
 * with the service's widget and the key, lands the submit on a page that repeats no
 * address, and stops on SIGTERM with 0; it refuses a missing or secret key, naming the
 * command that makes a publishable one for its origin.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { cliArguments } from "../../harness/entry-points.js";
import { run } from "../../src/cli/demo-command.js";
import { startDemoServer } from "../../src/demo/demo-server.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const KEY = "mrp_demoKeyForTheTestOnly0123456789";

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("mailrisk demo", () => {
  it("serves the form with the service's widget as a process, and stops on SIGTERM with 0", async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        ...cliArguments(),
        "demo",
        "--key",
        KEY,
        "--port",
        String(port),
        "--service",
        "http://127.0.0.1:9/base",
      ],
      { cwd: ROOT, env: { ...process.env, LIST_SOURCES: "off" }, stdio: ["ignore", "pipe", "inherit"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    await expect.poll(() => stdout, { timeout: 15_000 }).toContain("Ctrl-C stops it.");
    expect(stdout).toContain(
      `a sign-up form on http://127.0.0.1:${port}/ checking through http://127.0.0.1:9/base/`,
    );
    expect(stdout).not.toContain(KEY);

    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src http://127.0.0.1:9;");
    expect(csp).toContain("connect-src http://127.0.0.1:9;");
    expect(csp).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain(
      `<script src="http://127.0.0.1:9/base/widget.js" data-key="${KEY}" defer></script>`,
    );
    expect(html).toMatch(/<input id="email" name="email" type="email"[^>]* required data-mailrisk>/);

    const submitted = await fetch(`http://127.0.0.1:${port}/signed-up`, {
      method: "POST",
      body: new URLSearchParams({ email: "someone@example.com" }),
    });
    expect(submitted.status).toBe(200);
    expect(await submitted.text()).not.toContain("someone");
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("escapes what it puts in the page", async () => {
    const demo = await startDemoServer({ port: 0, serviceUrl: "http://127.0.0.1:9/", key: 'mrp_"><script>' });
    try {
      const html = await (await fetch(`${demo.url}/`)).text();
      expect(html).toContain('data-key="mrp_&quot;&gt;&lt;script&gt;"');
    } finally {
      await demo.close();
    }
  });

  it.each([
    [[], "demo needs a publishable key"],
    [["--key", "mr_secretKey0123456789"], "a secret key must never be put in a web page"],
  ])("refuses %j with exit 2, naming the command that makes a key for its origin", async (args, message) => {
    const cli = createTestCli("sqlite::memory:", "", { PORT: "8090" });
    expect(await run([...args, "--port", "8099"], cli.ctx)).toBe(2);
    expect(cli.stderr()).toContain(message);
    expect(cli.stderr()).toContain(
      "mailrisk keys create --plan free --publishable --origin http://127.0.0.1:8099",
    );
    expect(cli.stderr()).toContain("usage: mailrisk demo");
  });

  it("refuses a port out of range and a service that is no http(s) URL", async () => {
    const cli = createTestCli("sqlite::memory:");
    expect(await run(["--key", KEY, "--port", "70000"], cli.ctx)).toBe(2);
    expect(await run(["--key", KEY, "--port", "8099", "--service", "ftp://x"], cli.ctx)).toBe(2);
    expect(cli.stderr()).toContain("--port must be a whole number from 1 to 65535");
    expect(cli.stderr()).toContain("--service must be an http(s) URL");
  });
});
