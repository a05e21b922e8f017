/**
 * vitest's global set-up of the tests that spawn mailrisk: builds dist/ from the sources
 * once per run, so every process the run starts is the built service as deployed
 * (harness/entry-points.ts), not the sources compiled again by tsx in each process.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Whether dist/ was built after the last change to any file of src/ (an install's `prepare`). */
function distIsFresh(): boolean {
  let built: number;
  try {
    built = Math.min(
      statSync(join(ROOT, "dist/main.js")).mtimeMs,
      statSync(join(ROOT, "dist/cli/main.js")).mtimeMs,
    );
  } catch {
    return false;
  }
  const src = join(ROOT, "src");
  return readdirSync(src, { recursive: true, encoding: "utf8" }).every(
    (name) => statSync(join(src, name)).mtimeMs < built,
  );
}

export default function buildOnce(): void {
  if (process.env.MAILRISK_TEST_BUILT === "1") return;
  if (!distIsFresh()) {
    execFileSync(process.execPath, [join(ROOT, "scripts/build-dist.mjs")], { cwd: ROOT, stdio: "inherit" });
  }
  process.env.MAILRISK_TEST_BUILT = "1";
}
