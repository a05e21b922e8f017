/**
 * The suite's start order (test/sequencer.ts): group after group, room after room, and in
 * a room the files that took longest in the measured run first, then the others by size.
 * And the measured run names only files that exist.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import fileSeconds from "../file-seconds.json" with { type: "json" };
import { FILE_SECONDS, LongestFirst } from "../sequencer.js";

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "mailrisk-sequencer-"));
  await mkdir(join(root, "test"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function spec(
  name: string,
  bytes: number,
  room = "processes",
  groupOrder = 0,
): Promise<TestSpecification> {
  const moduleId = join(root, "test", name);
  await writeFile(moduleId, "x".repeat(bytes));
  return {
    moduleId,
    project: { name: room, config: { sequence: { groupOrder } } },
  } as unknown as TestSpecification;
}

it("starts room after room, and in a room the longest measured files first, then the others by size", async () => {
  await writeFile(
    join(root, FILE_SECONDS),
    JSON.stringify({ "test/slow.test.ts": 30, "test/mid.test.ts": 4, "test/apart.test.ts": 60 }),
  );
  const files = [
    await spec("small.test.ts", 10),
    await spec("mid.test.ts", 10),
    await spec("apart.test.ts", 10, "apart", 1),
    await spec("large.test.ts", 5000),
    await spec("unit.test.ts", 10, "unit"),
    await spec("integration.test.ts", 10, "integration"),
    await spec("slow.test.ts", 20),
  ];
  const sequencer = new LongestFirst({ config: { root } } as unknown as Vitest);
  const sorted = await sequencer.sort(files);
  expect(sorted.map((file) => file.moduleId.split("/").at(-1))).toEqual([
    "integration.test.ts",
    "slow.test.ts",
    "mid.test.ts",
    "large.test.ts",
    "small.test.ts",
    "unit.test.ts",
    "apart.test.ts",
  ]);
});

it("keeps to size order without a measured run", async () => {
  await rm(join(root, FILE_SECONDS));
  const files = [await spec("a.test.ts", 10), await spec("b.test.ts", 900)];
  const sorted = await new LongestFirst({ config: { root } } as unknown as Vitest).sort(files);
  expect(sorted.map((file) => file.moduleId.split("/").at(-1))).toEqual(["b.test.ts", "a.test.ts"]);
});

it("names only test files that exist in the measured run", () => {
  const missing = Object.keys(fileSeconds).filter((file) => !existsSync(file));
  expect(missing).toEqual([]);
});
