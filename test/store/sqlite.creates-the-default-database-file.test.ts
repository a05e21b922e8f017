import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { openStore } from "../../src/store/index.js";
import { migrations } from "../../src/store/migrations/index.js";

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "mailrisk-cwd-"));
});
afterEach(() => rm(cwd, { recursive: true, force: true }));

it("creates ./var/mailrisk.db under the working directory, in WAL mode, and nothing in data/", async () => {
  const config = loadConfig({}, cwd);
  expect(existsSync(join(cwd, "var"))).toBe(false);
  const store = await openStore(config.database);
  await store.migrate();
  await store.close();
  const file = join(cwd, "var", "mailrisk.db");
  expect(existsSync(file)).toBe(true);
  expect(existsSync(join(cwd, "data"))).toBe(false);
  const raw = new Database(file, { readonly: true });
  try {
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
  } finally {
    raw.close();
  }
});

it("creates a missing STATE_DIR, with its parents, for the default database", async () => {
  const config = loadConfig({ STATE_DIR: "state/of/things" }, cwd);
  expect(config.stateDir).toBe(join(cwd, "state", "of", "things"));
  const store = await openStore(config.database);
  await store.migrate();
  await store.close();
  expect(existsSync(join(cwd, "state", "of", "things", "mailrisk.db"))).toBe(true);
});

it("refuses at start a sqlite: path whose directory does not exist, and creates nothing", () => {
  const missing = join(cwd, "some", "missing", "dir");
  for (const url of [`sqlite:${join(missing, "x.db")}`, "sqlite:some/missing/dir/x.db"]) {
    expect(() => loadConfig({ DATABASE_URL: url }, cwd)).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: url }, cwd)).toThrow(`directory ${missing} does not exist`);
  }
  expect(existsSync(join(cwd, "some"))).toBe(false);
});

it("opens a sqlite: path in an existing directory", async () => {
  const config = loadConfig({ DATABASE_URL: "sqlite:x.db" }, cwd);
  const store = await openStore(config.database);
  await store.migrate();
  await store.close();
  expect(existsSync(join(cwd, "x.db"))).toBe(true);
});

it("gives every sqlite::memory: store its own database", async () => {
  const { database } = loadConfig({ DATABASE_URL: "sqlite::memory:" }, cwd);
  const a = await openStore(database);
  const b = await openStore(database);
  expect(await a.migrate()).toEqual(Object.keys(migrations));
  expect(await b.migrate()).toEqual(Object.keys(migrations));
  expect(await a.migrate()).toEqual([]);
  await Promise.all([a.close(), b.close()]);
});
