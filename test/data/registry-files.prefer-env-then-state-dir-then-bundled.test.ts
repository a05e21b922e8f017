import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import {
  BUNDLED_RDAP_BOOTSTRAP_FILE,
  loadRdapBootstrap,
  rdapBootstrapFileToRead,
} from "../../src/data/registry-files.js";
import { rdapBaseUrlFor } from "../../src/registry/rdap-bootstrap.js";

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "mailrisk-rdap-file-"));
});
afterEach(() => rm(cwd, { recursive: true, force: true }));

async function writeBootstrap(file: string, url: string): Promise<void> {
  const services = [[["loopback"], [url]]];
  await writeFile(file, JSON.stringify({ version: "1.0", publication: "2026-11-01T00:00:00Z", services }));
}

it("reads the bundled file while STATE_DIR holds no refreshed one", () => {
  expect(rdapBootstrapFileToRead(loadConfig({}, cwd))).toBe(BUNDLED_RDAP_BOOTSTRAP_FILE);
});

it("prefers <STATE_DIR>/rdap-bootstrap.json to the bundled file", async () => {
  await mkdir(join(cwd, "var"));
  await writeBootstrap(join(cwd, "var", "rdap-bootstrap.json"), "http://127.0.0.1:9/state/");
  const file = rdapBootstrapFileToRead(loadConfig({}, cwd));
  expect(file).toBe(join(cwd, "var", "rdap-bootstrap.json"));
  expect(rdapBaseUrlFor(loadRdapBootstrap(file), "a.loopback")).toBe("http://127.0.0.1:9/state/");
});

it("prefers RDAP_BOOTSTRAP_FILE to the state directory's file", async () => {
  await mkdir(join(cwd, "var"));
  await writeBootstrap(join(cwd, "var", "rdap-bootstrap.json"), "http://127.0.0.1:9/state/");
  await writeBootstrap(join(cwd, "mine.json"), "http://127.0.0.1:9/mine/");
  const file = rdapBootstrapFileToRead(loadConfig({ RDAP_BOOTSTRAP_FILE: "mine.json" }, cwd));
  expect(file).toBe(join(cwd, "mine.json"));
  expect(rdapBaseUrlFor(loadRdapBootstrap(file), "a.loopback")).toBe("http://127.0.0.1:9/mine/");
});
