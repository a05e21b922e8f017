/**
 * The CLI and every HTTP and web folder (the API's routes, the admin API, the public
 * pages, the account pages and the operator's desk) are adapters (docs/architecture.md
 * "Operator services"): they reach the store through src/store/index.ts only, and take from
 * it at run time nothing but `openStore`, `describeDatabase` and `StoreUnavailableError`;
 * types aside, everything else they need comes from the services or src/core. Biome's
 * rule in biome.json keeps them to index.ts; this test checks the names. And the pages
 * (src/web/member, src/web/desk) call no repository of the store themselves: their
 * rules are the services'.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url).pathname;

/** The store's one door for adapters. */
const STORE_INDEX = "src/store/index.ts";
/** What an adapter may take from the store at run time: opening it, naming its database, its outage. */
const STORE_VALUES = new Set(["openStore", "describeDatabase", "StoreUnavailableError"]);

/** Every folder whose modules adapt the services to a surface. */
const ADAPTER_FOLDERS = ["src/cli", "src/http", "src/web"];
/** The app, which composes the API's and the site's adapters. */
const ADAPTER_FILES = ["src/app.ts"];
/** The page folders, whose handlers call services, never a repository of the store. */
const PAGE_FOLDERS = ["src/web/member", "src/web/desk"];
/** Page files still calling a repository, each with why. */
const PAGE_REPOSITORY_CALLS: Record<string, string> = {
  "src/web/member/job-pages.ts":
    "reserves an upload's quota with store.usage (to move into the one quota function the API uses)",
};

/** The TypeScript files under a folder. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(folder, name));
}

/** One `import …`/`export … from` statement: what it names (`*` for a namespace or default) and from where. */
interface ImportStatement {
  specifier: string;
  /** The names it brings as values; type-only names left out. */
  values: string[];
}

function importStatements(source: string): ImportStatement[] {
  const statements = source.matchAll(/^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+"([^"]+)";/gms);
  return [...statements].map(([, typeOnly, names = "", specifier = ""]) => {
    const braced = /^\{([^}]*)\}$/.exec(names.trim())?.[1];
    const values =
      braced === undefined
        ? ["*"]
        : braced
            .split(",")
            .map((name) => name.trim())
            .filter((name) => name !== "" && !name.startsWith("type "))
            .map((name) => name.split(/\s+as\s+/)[0] as string);
    return { specifier, values: typeOnly ? [] : values };
  });
}

/** What adapter file `file` (its text `source`) takes from the store but may not: a file past index.ts, a value not allowed. */
function storeViolations(file: string, source: string): string[] {
  return importStatements(source).flatMap(({ specifier, values }) => {
    if (!specifier.startsWith(".")) return [];
    const target = relative(ROOT, join(ROOT, dirname(file), specifier)).replace(/\.js$/, ".ts");
    if (!target.startsWith("src/store/")) return [];
    if (target !== STORE_INDEX) return [`${specifier} (only ${STORE_INDEX})`];
    return values.filter((name) => !STORE_VALUES.has(name)).map((name) => `${name} from ${specifier}`);
  });
}

describe("adapters reach the store through the services", () => {
  it.each([...ADAPTER_FOLDERS.flatMap(filesUnder), ...ADAPTER_FILES])(
    "%s takes from the store only what adapters may",
    (file) => {
      expect(storeViolations(file, readFileSync(join(ROOT, file), "utf8"))).toEqual([]);
    },
  );

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

  it("refuses a value past openStore, describeDatabase and the outage error, and any file but index.ts", () => {
    const file = "src/http/probe.ts";
    expect(
      storeViolations(
        file,
        'import { describeDatabase, openStore, StoreUnavailableError, type Store } from "../store/index.js";\n' +
          'import type { Plan } from "../store/index.js";',
      ),
    ).toEqual([]);
    expect(storeViolations(file, 'import { isPublishableSecret } from "../store/index.js";')).toEqual([
      "isPublishableSecret from ../store/index.js",
    ]);
    expect(storeViolations(file, 'import * as store from "../store/index.js";')).toEqual([
      "* from ../store/index.js",
    ]);
    expect(storeViolations(file, 'export { REPORT_STATUSES } from "../store/index.js";')).toHaveLength(1);
    expect(storeViolations(file, 'import { MAX_QUOTA } from "../store/plans-repository.js";')).toHaveLength(
      1,
    );
    expect(storeViolations(file, 'import type { Plan } from "../store/plans-types.js";')).toHaveLength(1);
    expect(
      storeViolations("src/web/desk/probe.ts", 'import {\n  newToken,\n} from "../../store/secrets.js";'),
    ).toHaveLength(1);
    expect(storeViolations(file, 'import { MAX_QUOTA } from "../core/plan-rules.js";')).toEqual([]);
  });
});
