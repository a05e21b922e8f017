/**
 * The installed package's folder (the one whose package.json is named mailrisk), the one
 * place files beside the code are found from: `data/`, `widget/`, `package.json`. A
 * module's own URL says nothing about it once built: the build (scripts/build-dist.mjs)
 * bundles every module into dist/main.js, dist/cli/main.js and their shared chunks, so the
 * folder is found by walking up from wherever this code runs (src/ under tsx, dist/ built).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "mailrisk";

function isPackageRoot(dir: string): boolean {
  try {
    const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown };
    return json.name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (isPackageRoot(dir)) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json named ${PACKAGE_NAME} above ${from}`);
  }
}

/** The package's folder. */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** A path in the package: `packagePath("data", "popular.txt")`. */
export function packagePath(...parts: string[]): string {
  return join(PACKAGE_ROOT, ...parts);
}
