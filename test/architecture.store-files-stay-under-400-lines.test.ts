/**
 * The store stays in rooms a reader can hold (docs/architecture.md "The store"): no file
 * under src/store is longer than 400 lines; a repository that grows splits by what it
 * does, its contract and rows in `<entity>-types.ts` beside it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url).pathname;
const STORE = "src/store";
const MAX_LINES = 400;

/** The files of `texts` (name → text) longer than `MAX_LINES`, with their length. */
function overLong(texts: ReadonlyMap<string, string>): string[] {
  return [...texts]
    .map(([name, text]) => [name, text.replace(/\n$/, "").split("\n").length] as const)
    .filter(([, lines]) => lines > MAX_LINES)
    .map(([name, lines]) => `${name}: ${lines} lines`);
}

function storeFiles(): Map<string, string> {
  const names = readdirSync(join(ROOT, STORE), { recursive: true, encoding: "utf8" }).filter((name) =>
    name.endsWith(".ts"),
  );
  return new Map(names.map((name) => [join(STORE, name), readFileSync(join(ROOT, STORE, name), "utf8")]));
}

describe("store files stay under 400 lines", () => {
  it("holds for every file of src/store, migrations included", () => {
    const files = storeFiles();
    expect(files.size).toBeGreaterThan(40);
    expect(overLong(files)).toEqual([]);
  });

  it("names a file one line over, and not one at the bound", () => {
    const lines = (count: number) => "x\n".repeat(count);
    expect(overLong(new Map([["at.ts", lines(400)]]))).toEqual([]);
    expect(overLong(new Map([["over.ts", lines(401)]]))).toEqual(["over.ts: 401 lines"]);
  });
});
