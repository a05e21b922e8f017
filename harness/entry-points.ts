/**
 * How a test starts mailrisk as a process of its own. When this run built dist/ once
 * (vitest's global setup, harness/build-once.ts, sets MAILRISK_TEST_BUILT), the built
 * entry points as deployed: about half the start-up of the sources through tsx. Else (a
 * benchmark, a script, a test run without that set-up) the sources through tsx.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Whether this run built dist/ from the sources it tests. */
export function builtForThisRun(): boolean {
  return process.env.MAILRISK_TEST_BUILT === "1";
}

function entry(built: string, source: string, fromDist: boolean): string[] {
  return fromDist
    ? [join(ROOT, built)]
    : ["--import", join(ROOT, "node_modules/tsx/dist/loader.mjs"), join(ROOT, source)];
}

/** node's arguments that run `mailrisk` (the CLI), in any working directory. */
export function cliArguments(fromDist = builtForThisRun()): string[] {
  return entry("dist/cli/main.js", "src/cli/main.ts", fromDist);
}

/** node's arguments that run `npm start`'s server (src/main.ts), in any working directory. */
export function serverArguments(fromDist = builtForThisRun()): string[] {
  return entry("dist/main.js", "src/main.ts", fromDist);
}
