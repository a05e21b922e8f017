/**
 * The imports between the files of src/, clients/typescript/src and widget/ form no loop
 * (docs/architecture.md, "Leaves stay leaves"): every import and export-from counts,
 * type-only and dynamic `import()` ones too.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url).pathname;
const FOLDERS = ["src", "clients/typescript/src", "widget"];

const IMPORT = /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]*?\s+from\s+)?["']([^"']+)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Every .ts and .js file under `folder`, relative to the root. */
function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the sources), or null outside the set. */
function target(from: string, specifier: string, files: Set<string>): string | null {
  if (!specifier.startsWith(".")) return null;
  const path = relative(ROOT, resolve(ROOT, dirname(from), specifier));
  const candidates = [path, path.replace(/\.js$/, ".ts"), `${path}.ts`, join(path, "index.ts")];
  return candidates.find((candidate) => files.has(candidate)) ?? null;
}

/** Each file's imports of other files in the set. */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const text = readFileSync(join(ROOT, file), "utf8").replace(/^\s*\/\/.*$|^\s*\/\*[\s\S]*?\*\//gm, "");
      const specifiers = [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC_IMPORT)].map((m) => m[1] ?? "");
      const targets = specifiers.map((specifier) => target(file, specifier, known));
      return [file, [...new Set(targets.filter((t): t is string => t !== null))]];
    }),
  );
}

/** One loop per strongly connected group of files (Tarjan), each as the path that closes it. */
function loops(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group = stack.splice(stack.indexOf(file));
    if (group.length > 1 || graph.get(file)?.includes(file))
      found.push(cycleWithin(file, new Set(group), graph));
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** A path from `start` back to itself inside `group` (breadth first, so the shortest). */
function cycleWithin(start: string, group: Set<string>, graph: Map<string, string[]>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (const file of queue) {
    for (const next of graph.get(file) ?? []) {
      if (next === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0] ?? "") ?? start);
        return [...path, start];
      }
      if (group.has(next) && !previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start];
}

describe("the import graph", () => {
  it("finds a loop, type-only and dynamic imports included (the check bites)", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(loops(graph)).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
  });

  it("reads every kind of import statement", () => {
    const lines = [
      'import { a } from "./a.js";',
      'import type { B } from "./b.js";',
      'export { c } from "./c.js";',
      'export type { D } from "./d.js";',
      'export * from "./e.js";',
      'import "./f.js";',
      'import {\n  g,\n  type G,\n} from "./g.js";',
    ].join("\n");
    expect([...lines.matchAll(IMPORT)].map((m) => m[1])).toEqual([
      "./a.js",
      "./b.js",
      "./c.js",
      "./d.js",
      "./e.js",
      "./f.js",
      "./g.js",
    ]);
    expect([..."load: () => import('./h.js')".matchAll(DYNAMIC_IMPORT)].map((m) => m[1])).toEqual(["./h.js"]);
  });

  it("of src/, clients/typescript/src and widget/ has no loop", () => {
    const graph = importGraph(FOLDERS.flatMap(sourceFiles));
    expect(graph.size).toBeGreaterThan(100);
    expect(loops(graph).map((loop) => loop.join(" → "))).toEqual([]);
  });
});
