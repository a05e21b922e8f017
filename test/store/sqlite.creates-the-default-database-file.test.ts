import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "mailrisk-cwd-"));
});
afterEach(() => rm(cwd, { recursive: true, force: true }));

it("creates ./data/mailrisk.db under the working directory, in WAL mode", async () => {
  const store = await openStore(null, { cwd });
  await store.migrate();
  await store.close();
  const file = join(cwd, "data", "mailrisk.db");
  expect(existsSync(file)).toBe(true);
  const raw = new Database(file, { readonly: true });
  try {
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
  } finally {
    raw.close();
  }
});

it("creates missing directories of a sqlite: path", async () => {
  const store = await openStore("sqlite:nested/deeper/x.db", { cwd });
  await store.migrate();
  await store.close();
  expect(existsSync(join(cwd, "nested", "deeper", "x.db"))).toBe(true);
});

it("gives every sqlite::memory: store its own database", async () => {
  const a = await openStore("sqlite::memory:");
  const b = await openStore("sqlite::memory:");
  await a.migrate();
  expect(await b.migrate()).toEqual(["0001_initial"]);
  await a.createKey({ plan: "free", now: new Date() });
  expect(await b.countKeys()).toBe(0);
  await Promise.all([a.close(), b.close()]);
});
