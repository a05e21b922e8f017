/**
 * `npm test`: the static checks (`npm run check`: types, lint, knip, the data files, the
 * client's build) beside the suite (`vitest run`), not before it. The checks run mostly on
 * one core for about 45 s; the suite's first minute leaves room for them, so the whole run
 * ends sooner than one after the other. The suite prints as it goes; the checks' output
 * comes whole when they end, with their time. A failed check stops the suite at once
 * (nothing it says would land), and the run fails if either fails.
 *
 * Arguments go to vitest (`npm test -- test/cli`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

function ended(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => child.once("close", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

const started = performance.now();
const checks = spawn("npm", ["run", "--silent", "check"], { stdio: ["ignore", "pipe", "pipe"] });
const printed: Buffer[] = [];
checks.stdout?.on("data", (chunk: Buffer) => printed.push(chunk));
checks.stderr?.on("data", (chunk: Buffer) => printed.push(chunk));
// vitest's own process (not through npx, whose SIGTERM would not reach it): a failed check stops it.
const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));
const suite = spawn(process.execPath, [vitest, "run", ...process.argv.slice(2)], { stdio: "inherit" });

const checked = ended(checks).then((code) => {
  const seconds = Math.round((performance.now() - started) / 1000);
  process.stdout.write(Buffer.concat(printed));
  console.log(`::: npm run check: ${code === 0 ? "passed" : `failed (exit ${code})`} in ${seconds} s`);
  if (code !== 0) suite.kill("SIGTERM");
  return code;
});
const [checkCode, suiteCode] = await Promise.all([checked, ended(suite)]);
process.exitCode = checkCode !== 0 ? checkCode : suiteCode;
