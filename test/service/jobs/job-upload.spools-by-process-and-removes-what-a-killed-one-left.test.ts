/**
 * Upload spools (docs/jobs.md "Uploads"): an upload is spooled in a folder named by its
 * process and gone once read; at start, folders of a process that no longer runs (a
 * SIGKILL mid-upload) and folders older than the request timeout are removed, while a
 * running process's fresh one is kept.
 */

import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CSV_LIMITS } from "../../../src/service/csv/csv-error.js";
import { readUpload, removeStaleSpools, spoolRoot } from "../../../src/service/jobs/job-upload.js";

const MAX_AGE_MS = 30_000;

/** The id of a process that ran and has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

async function spoolFolder(root: string, name: string, ageMs = 0): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(join(root, name, "upload"), "a@example.com\n");
  const at = new Date(Date.now() - ageMs);
  await utimes(join(root, name), at, at);
}

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

describe("upload spools", () => {
  it("removes the folders of a process gone and old ones; keeps a running process's fresh one", async () => {
    const root = await mkdtemp(join(tmpdir(), "mailrisk-spool-test-"));
    roots.push(root);
    const gone = await deadPid();
    await spoolFolder(root, `${gone}-killed`);
    await spoolFolder(root, `${process.pid}-old`, MAX_AGE_MS + 60_000);
    await spoolFolder(root, `${process.pid}-fresh`);
    await spoolFolder(root, "not-a-spool");
    const removed = await removeStaleSpools(root, new Date(), MAX_AGE_MS);
    expect(removed.sort()).toEqual([`${gone}-killed`, `${process.pid}-old`].sort());
    expect((await readdir(root)).sort()).toEqual([`${process.pid}-fresh`, "not-a-spool"]);
    expect(await removeStaleSpools(join(root, "none"), new Date(), MAX_AGE_MS)).toEqual([]);
  });

  it("spools an upload in a folder of this process, removed once its items are read", async () => {
    const mine = async () =>
      (await readdir(spoolRoot()).catch(() => [] as string[])).filter((name) =>
        name.startsWith(`${process.pid}-`),
      );
    const before = await mine();
    const { batches } = await readUpload(
      Readable.from(["a@example.com\nb@example.com\n"]),
      "text",
      undefined,
      { maxItems: 10, maxBytes: 1000, csv: DEFAULT_CSV_LIMITS },
      500,
    );
    expect((await mine()).length).toBe(before.length + 1);
    const inputs: string[] = [];
    for await (const batch of batches) inputs.push(...batch.map((item) => item.input));
    expect(inputs).toEqual(["a@example.com", "b@example.com"]);
    expect(await mine()).toEqual(before);
  });
});
