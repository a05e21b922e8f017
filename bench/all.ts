/**
 * `npm run bench`: every `bench:*` script of package.json in turn (new ones included as
 * they are added), each printing its own table, then one table of every figure. A
 * script's figures come from the line `printFiguresLine` (report.ts) prints after its
 * table. `bench:recheck` runs on BENCH_RECHECK_DOMAINS=3000 unless the environment sets
 * it, and `bench:soak` on BENCH_SOAK_SECONDS=60. Exit code 1 when any script failed, missed a target, or printed no figures.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { describeMachine } from "./machine.js";
import { FIGURES_LINE_MARKER, type FiguresLine } from "./report.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** Smaller runs of the long benchmarks, unless the environment says otherwise. */
const DEFAULTS: Record<string, string> = { BENCH_RECHECK_DOMAINS: "3000", BENCH_SOAK_SECONDS: "60" };

interface ScriptRun {
  script: string;
  code: number | null;
  seconds: number;
  tables: FiguresLine[];
}

function benchScripts(): string[] {
  const { scripts } = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as {
    scripts: Record<string, string>;
  };
  return Object.keys(scripts).filter((name) => name.startsWith("bench:"));
}

/** Runs one script with its output passed through, collecting its figures lines. */
function run(script: string): Promise<ScriptRun> {
  const started = performance.now();
  const tables: FiguresLine[] = [];
  const child = spawn("npm", ["run", "--silent", script], {
    cwd: ROOT,
    env: { ...DEFAULTS, ...process.env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let pending = "";
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith(FIGURES_LINE_MARKER))
        tables.push(JSON.parse(line.slice(FIGURES_LINE_MARKER.length)));
      else process.stdout.write(`${line}\n`);
    }
  });
  return new Promise((resolve) =>
    child.on("close", (code) =>
      resolve({ script, code, seconds: (performance.now() - started) / 1000, tables }),
    ),
  );
}

function printSummary(runs: ScriptRun[], loadBefore: number): boolean {
  const widths = [16, 46, 34, 28, 7];
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log("\n\nmailrisk benchmarks — every figure, `npm run bench`");
  console.log(`${describeMachine(loadBefore)}\n`);
  console.log(line(["script", "figure", "measured", "target", "verdict"]));
  console.log(line(["---", "---", "---", "---", "---"]));
  let ok = true;
  for (const { script, code, seconds, tables } of runs) {
    if (code !== 0 || tables.length === 0) {
      ok = false;
      const why = code !== 0 ? `exit code ${code}` : "printed no figures";
      console.log(line([script, `(${why}, after ${seconds.toFixed(0)} s)`, "", "", "FAIL"]));
    }
    for (const { rows } of tables) {
      for (const [figure, measured, target, met] of rows) {
        if (met === false) ok = false;
        console.log(line([script, figure, measured, target, met === null ? "" : met ? "pass" : "MISS"]));
      }
    }
  }
  return ok;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const runs: ScriptRun[] = [];
  for (const script of benchScripts()) {
    console.log(`\n=== npm run ${script}`);
    runs.push(await run(script));
  }
  process.exitCode = printSummary(runs, loadBefore) ? 0 : 1;
}

await main();
