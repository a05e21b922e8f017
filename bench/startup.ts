/**
 * Start-up benchmark (`npm run bench:startup`): a fresh `node` process running the
 * compiled code (src/ compiled into a temporary directory) from process start until the
 * lists are loaded and the typo index is built, and its RSS then. Targets ≤ 1 s, ≤ 200 MB.
 */
import { execFile as execFileCallback, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { DATA_DIR } from "../src/data/read-domain-lists.js";
import { finish, formatMegabytes, median } from "./report.js";

const execFile = promisify(execFileCallback);

const STARTUP_RUNS = 5;
const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Runs in a fresh `node`: imports the compiled loaders, loads everything, reports. */
const STARTUP_PROBE = `
import { pathToFileURL } from "node:url";
const [dist, dataDir] = process.argv.slice(1);
const booted = performance.now();
const { loadDomainLists } = await import(pathToFileURL(dist + "/data/read-domain-lists.js").href);
const { TypoIndex } = await import(pathToFileURL(dist + "/core/typo.js").href);
const imported = performance.now();
const { GCProfiler } = await import("node:v8");
const gcs = new GCProfiler();
gcs.start();
const usedBefore = process.memoryUsage();
const cpuBefore = process.cpuUsage();
const lists = loadDomainLists(dataDir);
const typos = new TypoIndex(lists.popular);
const ready = performance.now();
const cpu = process.cpuUsage(cpuBefore);
const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
const { statistics } = gcs.stop();
// Allocated: what the heap and array buffers grew by, plus what each collection freed.
const freed = statistics.reduce((sum, s) => sum + s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize, 0);
const allocated = heapUsed + arrayBuffers - usedBefore.heapUsed - usedBefore.arrayBuffers + freed;
if (typos.suggest("gmial.com")[0] !== "gmail.com") throw new Error("lists not loaded");
console.log(JSON.stringify({ booted, imports: imported - booted, load: ready - imported, loadCpu: (cpu.user + cpu.system) / 1000, allocated, collections: statistics.length, ready, rss, heapUsed }));
`;

interface StartupFigure {
  booted: number;
  imports: number;
  load: number;
  /** CPU of the load (every thread: the collector's too). */
  loadCpu: number;
  /** Bytes the load allocated. */
  allocated: number;
  collections: number;
  ready: number;
  rss: number;
  heapUsed: number;
}

/** Compiles src/ into a temporary directory (so dist/ is left alone) and starts it STARTUP_RUNS times. */
async function benchStartup(): Promise<StartupFigure> {
  // Under the project (so node_modules resolve), in its git-ignored .tmp/.
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  const tmp = mkdtempSync(join(ROOT, ".tmp", "bench-startup-"));
  try {
    execFileSync(
      join(ROOT, "node_modules/.bin/tsc"),
      ["-p", "tsconfig.build.json", "--outDir", tmp, "--sourceMap", "false", "--noCheck"],
      {
        cwd: ROOT,
        stdio: "inherit",
      },
    );
    const runs: StartupFigure[] = [];
    for (let run = 0; run < STARTUP_RUNS; run++) {
      const { stdout } = await execFile(process.execPath, [
        "--input-type=module",
        "--eval",
        STARTUP_PROBE,
        tmp,
        DATA_DIR,
      ]);
      runs.push(JSON.parse(stdout) as StartupFigure);
    }
    const key = (name: keyof StartupFigure) => median(runs.map((r) => r[name]));
    return {
      booted: key("booted"),
      imports: key("imports"),
      load: key("load"),
      loadCpu: key("loadCpu"),
      allocated: key("allocated"),
      collections: key("collections"),
      ready: key("ready"),
      rss: key("rss"),
      heapUsed: key("heapUsed"),
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function report(loadBefore: number, startup: StartupFigure): void {
  finish({
    title: "mailrisk start-up benchmark",
    script: "bench:startup",
    loadBefore,
    rows: [
      [
        "start-up (process start → lists ready)",
        `${startup.ready.toFixed(0)} ms`,
        "≤ 1,000 ms",
        startup.ready <= 1_000,
      ],
      [
        "RSS with all lists loaded",
        formatMegabytes(startup.rss),
        "≤ 200 MB",
        startup.rss <= 200 * 1024 * 1024,
      ],
    ],
    notes: [
      `\nstart-up: median of ${STARTUP_RUNS} fresh \`node\` processes running src/ compiled by tsc (as \`npm start\` runs dist/):` +
        ` node boot ${startup.booted.toFixed(0)} ms + imports ${startup.imports.toFixed(0)} ms + loadDomainLists() and TypoIndex` +
        ` ${startup.load.toFixed(0)} ms (${startup.loadCpu.toFixed(0)} ms of CPU; ${formatMegabytes(startup.allocated)} allocated,` +
        ` ${startup.collections} collections); RSS then ${formatMegabytes(startup.rss)}, of it JS heap ${formatMegabytes(startup.heapUsed)}.`,
    ],
  });
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  report(loadBefore, await benchStartup());
}

await main();
