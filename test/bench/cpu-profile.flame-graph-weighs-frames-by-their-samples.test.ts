/**
 * The flame graph of `npm run profile:http` and `profile:cold` (bench/cpu-profile.ts):
 * frames of the same name under one parent merged, each as wide as its samples (its own
 * and its callees'), idle time and samples before the window's start left out, every
 * name escaped, and each frame's figures in its tooltip; the profile read is the
 * folder's newest of the main thread.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  callTree,
  flameGraphSvg,
  heaviest,
  mainThreadProfile,
  type Profile,
} from "../../bench/cpu-profile.js";

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 1, columnNumber: 0 },
  children,
});

/** (root) → handle → parse, and a second `handle` node (another call site) → write<1>; idle; GC. */
const PROFILE: Profile = {
  nodes: [
    frame(1, "(root)", "", [2, 4, 6, 7]),
    frame(2, "handle", "node:http", [3]),
    frame(3, "parse", "node:http"),
    frame(4, "handle", "node:http", [5]),
    frame(5, "write<1>", "node:net"),
    frame(6, "(idle)", ""),
    frame(7, "(garbage collector)", ""),
  ],
  // At 10, 20, … 80 µs.
  samples: [3, 3, 2, 5, 6, 6, 7, 3],
  startTime: 0,
  timeDeltas: [10, 10, 10, 10, 10, 10, 10, 10],
};

describe("a CPU profile's flame graph", () => {
  it("merges a parent's frames of one name and weighs each by its samples, idle left out", async () => {
    const tree = await callTree(PROFILE);
    expect(tree.samples).toBe(6);
    const handle = tree.children.get("handle node:http:2");
    expect(handle?.samples).toBe(5);
    expect(handle?.children.get("parse node:http:2")?.samples).toBe(3);
    expect(handle?.children.get("write<1> node:net:2")?.samples).toBe(1);
    expect(tree.children.get("(garbage collector)")?.samples).toBe(1);
    expect([...tree.children.keys()].some((name) => name.startsWith("(idle)"))).toBe(false);
    const { self, total } = heaviest(tree, 2);
    expect(self).toEqual([
      ["parse node:http:2", 3],
      ["handle node:http:2", 1],
    ]);
    expect(total[0]).toEqual(["handle node:http:2", 5]);
  });

  it("counts only the samples from the window's start", async () => {
    // From 45 µs: idle at 50 and 60, the collector at 70, parse at 80.
    const tree = await callTree(PROFILE, 45);
    expect(tree.samples).toBe(2);
    expect(tree.children.get("handle node:http:2")?.samples).toBe(1);
    expect(tree.children.get("(garbage collector)")?.samples).toBe(1);
  });

  it("draws each frame as wide as its share, its name escaped and its figures in its tooltip", async () => {
    const svg = flameGraphSvg(await callTree(PROFILE), "cached <checks>", "a machine & its load");
    expect(svg).toContain("<title>Flame graph: cached &lt;checks&gt;</title>");
    expect(svg).toContain("a machine &amp; its load");
    // Callers' children in name order: the collector (200 px of 1,200), then `handle` (1,000).
    expect(svg).toMatch(
      /<title>handle node:http:2: 5 samples, 83\.33 %<\/title><rect x="200\.0" y="\d+" width="1000\.0"/,
    );
    expect(svg).toMatch(
      /<title>parse node:http:2: 3 samples, 50\.00 %<\/title><rect x="200\.0" y="\d+" width="600\.0"/,
    );
    expect(svg).toContain("<title>write&lt;1&gt; node:net:2: 1 samples, 16.67 %</title>");
    expect(svg).not.toContain("write<1>");
  });

  it("reads a folder's newest main-thread profile, not another thread's", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mailrisk-profiles-"));
    try {
      const write = (name: string, startTime: number) =>
        writeFile(join(dir, name), JSON.stringify({ ...PROFILE, startTime }));
      await write("CPU.20261129.101500.4242.0.001.cpuprofile", 1);
      await write("CPU.20261129.111500.4343.0.001.cpuprofile", 2);
      await write("CPU.20261129.111501.4343.1.002.cpuprofile", 3);
      const { file, profile } = await mainThreadProfile(dir);
      expect(file).toBe(join(dir, "CPU.20261129.111500.4343.0.001.cpuprofile"));
      expect(profile.startTime).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
