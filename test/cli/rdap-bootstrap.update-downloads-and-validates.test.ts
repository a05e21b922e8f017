import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/rdap-bootstrap-command.js";
import { loadConfig } from "../../src/config.js";
import {
  BUNDLED_RDAP_BOOTSTRAP_FILE,
  loadRdapBootstrap,
  rdapBootstrapFileToRead,
} from "../../src/data/registry-files.js";
import { rdapBaseUrlFor } from "../../src/registry/rdap-bootstrap.js";

const IANA_LIKE = {
  description: "RDAP bootstrap file for Domain Name System registrations",
  publication: "2026-11-20T19:00:01Z",
  services: [
    [["com", "net"], ["https://rdap.verisign.com/com/v1/"]],
    [["example"], ["http://rdap.example.test/", "https://rdap.example.test/"]],
  ],
  version: "1.0",
};

const BODIES: Record<string, { status: number; body: string }> = {
  "/dns.json": { status: 200, body: JSON.stringify(IANA_LIKE) },
  "/not-json": { status: 200, body: "<html>maintenance</html>" },
  "/wrong-shape": { status: 200, body: JSON.stringify({ version: "1.0", services: "none" }) },
  "/gone": { status: 503, body: "" },
};

let server: Server;
let origin: string;
/** Every run gets its own STATE_DIR, so nothing is ever written beside the bundled data. */
let stateDir: string;
let bundledHash: string;

const sha256 = async (file: string) =>
  createHash("sha256")
    .update(await readFile(file))
    .digest("hex");

beforeAll(async () => {
  bundledHash = await sha256(BUNDLED_RDAP_BOOTSTRAP_FILE);
  stateDir = join(await mkdtemp(join(tmpdir(), "mailrisk-state-")), "var");
  server = createServer((request, response) => {
    const answer = BODIES[request.url ?? ""] ?? { status: 404, body: "" };
    response.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(join(stateDir, ".."), { recursive: true, force: true });
  expect(await sha256(BUNDLED_RDAP_BOOTSTRAP_FILE)).toBe(bundledHash);
});

async function runCli(args: string[], env: Record<string, string> = {}) {
  const config = loadConfig({ STATE_DIR: stateDir, ...env });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on("data", (chunk) => out.push(String(chunk)));
  stderr.on("data", (chunk) => err.push(String(chunk)));
  const code = await run(args, { stdout, stderr, config });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

async function tempFile(content = "previous"): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), "mailrisk-cli-")), "dns.json");
  await writeFile(file, content);
  return file;
}

describe("mailrisk rdap-bootstrap update", () => {
  it("downloads the bootstrap, checks it and writes it where --out says", async () => {
    const out = await tempFile();
    const result = await runCli(["update", "--url", `${origin}/dns.json`, "--out", out]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe(`wrote ${out}: 3 TLDs, publication 2026-11-20T19:00:01Z\n`);
    const table = loadRdapBootstrap(out);
    expect(rdapBaseUrlFor(table, "a.net")).toBe("https://rdap.verisign.com/com/v1/");
    expect(rdapBaseUrlFor(table, "a.example")).toBe("https://rdap.example.test/");
    expect(JSON.parse(await readFile(out, "utf8"))).toEqual(IANA_LIKE);
  });

  it("writes to RDAP_BOOTSTRAP_FILE when --out is not given", async () => {
    const file = await tempFile();
    const result = await runCli(["update", "--url", `${origin}/dns.json`], { RDAP_BOOTSTRAP_FILE: file });
    expect(result.code).toBe(0);
    expect(JSON.parse(await readFile(file, "utf8")).publication).toBe(IANA_LIKE.publication);
    expect(existsSync(stateDir)).toBe(false);
  });

  it("writes to <STATE_DIR>/rdap-bootstrap.json by default, creating STATE_DIR; the service then reads it", async () => {
    const file = join(stateDir, "rdap-bootstrap.json");
    const result = await runCli(["update", "--url", `${origin}/dns.json`]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe(`wrote ${file}: 3 TLDs, publication 2026-11-20T19:00:01Z\n`);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual(IANA_LIKE);
    const read = rdapBootstrapFileToRead(loadConfig({ STATE_DIR: stateDir }));
    expect(read).toBe(file);
    expect(rdapBaseUrlFor(loadRdapBootstrap(read), "a.example")).toBe("https://rdap.example.test/");
    expect(await sha256(BUNDLED_RDAP_BOOTSTRAP_FILE)).toBe(bundledHash);
  });

  it.each([
    ["/not-json", /did not return JSON/],
    ["/wrong-shape", /publication/],
    ["/gone", /HTTP 503/],
  ])("leaves the file alone when %s is served", async (path, message) => {
    const out = await tempFile();
    const result = await runCli(["update", "--url", `${origin}${path}`, "--out", out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(await readFile(out, "utf8")).toBe("previous");
  });

  it.each([[[]], [["refresh"]], [["update", "extra"]], [["update", "--bogus"]], [["update", "--url"]]])(
    "prints its usage for %j",
    async (args) => {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/usage: mailrisk rdap-bootstrap update/);
    },
  );
});
