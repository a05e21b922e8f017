/**
 * An earlier commit of mailrisk, built to measure against (`bench:uploads`' "before"):
 * its files from git (`git archive`, so no worktree is registered), this checkout's
 * node_modules linked in (a baseline's dependencies are a subset of today's), and its
 * `dist/` built by its own `npm run build`. Kept in the system's temporary folder by commit,
 * so a second run builds nothing. `runBaselineCli` runs its `mailrisk` (its own
 * migrations, keys and plans: today's store would migrate its database past it).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The folder of `commit` built (its dist/cli/main.js ready to run). */
export function buildBaseline(commit: string): string {
  const sha = execFileSync("git", ["rev-parse", "--verify", `${commit}^{commit}`], {
    cwd: ROOT,
    encoding: "utf8",
  }).trim();
  const dir = join(tmpdir(), `mailrisk-baseline-${sha.slice(0, 12)}`);
  if (existsSync(join(dir, "dist/cli/main.js"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync("git", ["archive", sha], { cwd: ROOT, maxBuffer: 1024 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  // Its own build (tsc module by module before the bundle, scripts/build-dist.mjs after).
  execFileSync("npm", ["run", "--silent", "build"], { cwd: dir, stdio: "inherit" });
  return dir;
}

/** Runs the baseline's `mailrisk <args>` on `env`; its stdout. */
export function runBaselineCli(dir: string, args: string[], env: Record<string, string>): string {
  return execFileSync(process.execPath, [join(dir, "dist/cli/main.js"), ...args], {
    cwd: dir,
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
}
