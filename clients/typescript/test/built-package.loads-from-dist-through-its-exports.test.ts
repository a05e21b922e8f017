/**
 * The package as a user installs it: `@mailrisk/client` by its name (the workspace's link
 * in node_modules), through `exports` to the build in dist/ (`npm test` builds it before
 * vitest; alone: `npm run build -w @mailrisk/client`). Node resolves the name to
 * dist/index.js and refuses a path that `exports` does not list; the built `MailRisk`
 * checks against a scripted loopback server and fails open with the built `MailRiskError`.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleRecord } from "../../../harness/sample-record.js";

const PACKAGE = "@mailrisk/client";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

/** What the package's name loads: typed as the source, loaded from dist (a name in a variable keeps tsc off dist). */
type Package = typeof import("../src/index.js");

let server: Server;
let base: string;
const answers: ((response: ServerResponse) => void)[] = [];
const record = sampleRecord({ domain: "mailinator.com", block: true, risk: 95 });

beforeAll(async () => {
  expect(existsSync(`${DIST}index.js`), `no ${DIST}index.js: run npm run build -w ${PACKAGE}`).toBe(true);
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const answer = answers.shift();
      if (answer) answer(response);
      else response.writeHead(500, { "content-type": "text/plain" }).end("no answer scripted");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  // No server when the set-up failed (the client's dist/ not built): nothing to close.
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Runs an ES module in Node from the repository's root, as a user's code would import the package. */
function nodeModule(source: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", source], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 15_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("the built package", () => {
  it("is what Node loads for the package name, through exports, and nothing else of dist is reachable", () => {
    const loaded = nodeModule(`
      const client = await import("${PACKAGE}");
      console.log(JSON.stringify({ url: import.meta.resolve("${PACKAGE}"), names: Object.keys(client).sort() }));`);
    expect(loaded.stderr).toBe("");
    expect(JSON.parse(loaded.stdout)).toEqual({
      url: expect.stringMatching(/\/clients\/typescript\/dist\/index\.js$/),
      names: ["DEFAULT_TIMEOUT_MS", "MailRisk", "MailRiskError"],
    });

    const deep = nodeModule(`await import("${PACKAGE}/dist/mail-risk.js");`);
    expect(deep.status).not.toBe(0);
    expect(deep.stderr).toContain("ERR_PACKAGE_PATH_NOT_EXPORTED");

    const manifest = JSON.parse(readFileSync(`${DIST}../package.json`, "utf8")) as {
      exports: { ".": { types: string } };
    };
    expect(readFileSync(`${DIST}../${manifest.exports["."].types}`, "utf8")).toContain("MailRisk");
  });

  it("checks against a scripted server: the record with outcome, and with failOpen a 503 as unknown", async () => {
    const { MailRisk, MailRiskError } = (await import(/* @vite-ignore */ PACKAGE)) as Package;
    expect(MailRisk).toBeTypeOf("function");
    expect(MailRisk).not.toBe((await import("../src/index.js")).MailRisk); // dist's, not the source's
    expect(new MailRiskError("timeout", 0, "d")).toBeInstanceOf(Error);

    answers.push(
      (response) =>
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(record)),
      (response) =>
        response.writeHead(503, { "content-type": "application/problem+json" }).end(
          JSON.stringify({
            type: "about:blank",
            title: "T",
            status: 503,
            detail: "d",
            code: "database_unavailable",
          }),
        ),
    );
    const client = new MailRisk({ baseUrl: base, key: "mr_k", failOpen: true });
    const checked = await client.check("someone@mailinator.com");
    expect(checked).toEqual({ ...record, outcome: "checked" });
    expect(checked.block).toBe(true);
    const unknown = await client.check("someone@mailinator.com");
    expect(unknown.outcome).toBe("unknown");
    expect(unknown.outcome === "unknown" && unknown.error).toBeInstanceOf(MailRiskError);
    expect(unknown.outcome === "unknown" && unknown.error.code).toBe("database_unavailable");
  });
});
