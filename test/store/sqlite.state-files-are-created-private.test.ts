/**
 * The service's state is its own (docs/security.md, "State files"): a SQLite database it
 * creates is 0600, its -wal and -shm files too, and a STATE_DIR it creates is 0700,
 * whatever the umask lets through (here 022: 0644 and 0755 otherwise). A file that
 * exists keeps the mode its owner gave it.
 */
import { chmodSync, existsSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { openStore } from "../../src/store/index.js";

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "mailrisk-modes-"));
});
afterEach(() => rm(cwd, { recursive: true, force: true }));

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

it("creates STATE_DIR 0700 and the database, its WAL and its shared memory 0600", async () => {
  const config = loadConfig({ STATE_DIR: "state" }, cwd);
  const store = await openStore(config.database);
  try {
    await store.migrate();
    await store.plans.createPlan({ name: "modes", quota: 10, periodDays: 30 });
    const file = join(cwd, "state", "mailrisk.db");
    // While the store is open, SQLite keeps the WAL and the shared-memory index beside it.
    expect(existsSync(`${file}-wal`)).toBe(true);
    expect(existsSync(`${file}-shm`)).toBe(true);
    expect([mode(join(cwd, "state")), mode(file), mode(`${file}-wal`), mode(`${file}-shm`)]).toEqual([
      "700",
      "600",
      "600",
      "600",
    ]);
  } finally {
    await store.close();
  }
});

it("creates an explicit sqlite: file 0600, and leaves an existing file's mode alone", async () => {
  const store = await openStore(loadConfig({ DATABASE_URL: "sqlite:new.db" }, cwd).database);
  await store.migrate();
  await store.close();
  expect(mode(join(cwd, "new.db"))).toBe("600");

  const existing = join(cwd, "existing.db");
  writeFileSync(existing, "");
  chmodSync(existing, 0o640);
  const again = await openStore(loadConfig({ DATABASE_URL: "sqlite:existing.db" }, cwd).database);
  await again.migrate();
  await again.close();
  expect(mode(existing)).toBe("640");
});
