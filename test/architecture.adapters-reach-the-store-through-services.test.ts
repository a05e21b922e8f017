/**
 * The CLI and the admin API are adapters (docs/architecture.md "Operator services"): no
 * module of theirs imports a run-time value from src/store/, types aside, but the one
 * place that opens the store and the one that maps its outage.
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
  it.each([...filesUnder("src/cli"), ...filesUnder("src/http/admin")])("%s", (file) => {
    const intoStore = valueImports(readFileSync(join(ROOT, file), "utf8")).filter(
      (specifier) =>
        specifier.startsWith(".") &&
        relative(ROOT, join(ROOT, dirname(file), specifier)).startsWith("src/store/"),
    );
    expect(intoStore.length === 0 || ALLOWED[file] !== undefined, intoStore.join(", ")).toBe(true);
  });

  it("reads a value import as one and a type import as none", () => {
    expect(
      valueImports('import { a, type B } from "../store/x.js";\nimport type { C } from "../store/y.js";'),
    ).toEqual(["../store/x.js"]);
    expect(valueImports('import { type A, type B } from "../store/x.js";')).toEqual([]);
  });
});
