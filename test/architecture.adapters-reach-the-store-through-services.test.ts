/**
 * The CLI, the API (src/http: its routes and the admin API) and the site (src/web: the
 * public pages, the account pages and the operator's desk) are adapters (docs/architecture.md "Operator
 * services"): no module of theirs imports a run-time value from src/store/, types aside,
 * but the few named below with why. And the pages (src/web/member, src/web/desk)
 * call no repository of the store themselves: their rules are the services'.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url).pathname;

/** Adapter files allowed a run-time value of the store, each with why. */
const ALLOWED: Record<string, string> = {
  "src/cli/context.ts": "opens the configured store",
  "src/cli/run-cli.ts": "names the database and maps its outage to a message",
  "src/cli/rdap-bootstrap-command.ts": "writes its file with the state files' private modes",
  "src/http/problem-response.ts": "maps the store's outage and a suspended account to their problems",
  "src/http/access.ts":
    "tells a publishable key by its prefix and bounds a quota, before any look-up (hot path)",
  "src/http/publishable-keys.ts": "tells a publishable key by its prefix before any look-up",
};

/** Every folder whose modules adapt the services to a surface. */
const ADAPTER_FOLDERS = ["src/cli", "src/http", "src/web"];
/** The page folders, whose handlers call services, never a repository of the store. */
const PAGE_FOLDERS = ["src/web/member", "src/web/desk"];
/** Page files still calling a repository, each with why. */
const PAGE_REPOSITORY_CALLS: Record<string, string> = {
  "src/web/member/job-pages.ts":
    "reserves an upload's quota with store.usage (to move into the one quota function the API uses)",
};

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(folder, name));
}

/** The specifiers of `import …`/`export … from` statements that bring a value, not only types. */
function valueImports(source: string): string[] {
  const statements = source.matchAll(/^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+"([^"]+)";/gms);
  return [...statements]
    .filter(([, typeOnly, names = ""]) => {
      if (typeOnly) return false;
      const braced = /^\{([^}]*)\}$/.exec(names.trim())?.[1];
      return braced === undefined || braced.split(",").some((name) => !/^\s*(type\s|$)/.test(name));
    })
    .map(([, , , specifier]) => specifier as string);
}

describe("adapters reach the store through the services", () => {
  it.each(ADAPTER_FOLDERS.flatMap(filesUnder))("%s imports no value of the store", (file) => {
    const intoStore = valueImports(readFileSync(join(ROOT, file), "utf8")).filter(
      (specifier) =>
        specifier.startsWith(".") &&
        relative(ROOT, join(ROOT, dirname(file), specifier)).startsWith("src/store/"),
    );
    expect(intoStore.length === 0 || ALLOWED[file] !== undefined, intoStore.join(", ")).toBe(true);
  });

  it.each(PAGE_FOLDERS.flatMap(filesUnder))("%s calls no repository of the store", (file) => {
    const calls = [...readFileSync(join(ROOT, file), "utf8").matchAll(/\bstore\.(\w+)\.(\w+)\(/g)].map(
      ([call]) => call,
    );
    expect(calls.length === 0 || PAGE_REPOSITORY_CALLS[file] !== undefined, calls.join(", ")).toBe(true);
  });

  it("covers the pages: their folders are among the adapter folders", () => {
    for (const folder of PAGE_FOLDERS) expect(filesUnder(folder).length).toBeGreaterThan(0);
    expect(
      PAGE_FOLDERS.every((folder) => ADAPTER_FOLDERS.some((adapter) => folder.startsWith(`${adapter}/`))),
    ).toBe(true);
  });

  it("reads a value import as one and a type import as none", () => {
    expect(
      valueImports('import { a, type B } from "../store/x.js";\nimport type { C } from "../store/y.js";'),
    ).toEqual(["../store/x.js"]);
    expect(valueImports('import { type A, type B } from "../store/x.js";')).toEqual([]);
  });
});
