/**
 * Start-up benchmark (`npm run bench:startup`): a fresh `node` process running the
 * compiled code (src/ compiled into a temporary directory) from process start until the
 * lists are loaded and the typo index is built, and its RSS then. Targets ≤ 1 s, ≤ 200 MB.
 *
 * Then the whole service, `mailrisk serve --workers 1` until it answers /healthz, as the
 * build bundles it (scripts/build-dist.mjs) and as tsc compiles it module by module, in
 * pairs: the CPU it used then (user + system, bench/served.ts's `cpuMicros`), what each
 * test that starts the service pays.
 */
import { execFile as execFileCallback, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { DATA_DIR } from "../src/data/read-domain-lists.js";
import { finish, formatMegabytes, median } from "./report.js";
import { cpuMicros } from "./served.js";

const execFile = promisify(execFileCallback);

const STARTUP_RUNS = 5;
/** Starts of each build to /healthz, taken in pairs (the order alternating). */
const HEALTHZ_PAIRS = 5;
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

interface HealthzFigure {
  /** Median CPU (user + system) from process start to the first 200 from /healthz. */
  cpuMs: number;
  /** Median wall time to it. */
  wallMs: number;
}

interface HealthzPair {
  compiled: HealthzFigure;
  bundled: HealthzFigure;
}

/** A port free on loopback now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Starts `serve --workers 1` from `cli` (a built dist/cli/main.js) in a fresh state folder until /healthz answers. */
async function startToHealthz(cli: string, stateDir: string): Promise<{ cpuMs: number; wallMs: number }> {
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [cli, "serve", "--workers", "1"], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), LIST_SOURCES: "off", STATE_DIR: stateDir },
    stdio: "ignore",
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${cli} ended with ${child.exitCode} before /healthz`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return { cpuMs: (await cpuMicros(child.pid ?? 0)) / 1000, wallMs: performance.now() - started };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("close", resolve));
  }
}

/** `serve` to /healthz from src/ compiled by tsc (`compiled`) and bundled by the build (`bundled`), HEALTHZ_PAIRS starts each. */
async function benchHealthz(compiled: string, bundled: string, stateDir: string): Promise<HealthzPair> {
  const runs = {
    compiled: [] as { cpuMs: number; wallMs: number }[],
    bundled: [] as { cpuMs: number; wallMs: number }[],
  };
  for (let pair = 0; pair < HEALTHZ_PAIRS; pair++) {
    const order = pair % 2 === 0 ? (["compiled", "bundled"] as const) : (["bundled", "compiled"] as const);
    for (const which of order) {
      runs[which].push(
        await startToHealthz(join(which === "compiled" ? compiled : bundled, "cli/main.js"), stateDir),
      );
    }
  }
  const figure = (which: keyof HealthzPair): HealthzFigure => ({
    cpuMs: median(runs[which].map((r) => r.cpuMs)),
    wallMs: median(runs[which].map((r) => r.wallMs)),
  });
  return { compiled: figure("compiled"), bundled: figure("bundled") };
}

/**
 * Compiles src/ into a temporary directory (so dist/ is left alone) and starts it
 * STARTUP_RUNS times; bundles it into another and starts both to /healthz.
 */
async function benchStartup(): Promise<{ startup: StartupFigure; healthz: HealthzPair }> {
  // Under the project (so node_modules resolve), in its git-ignored .tmp/.
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  const tmp = mkdtempSync(join(ROOT, ".tmp", "bench-startup-"));
  const bundled = mkdtempSync(join(ROOT, ".tmp", "bench-startup-bundled-"));
  const stateDir = mkdtempSync(join(ROOT, ".tmp", "bench-startup-state-"));
  try {
    execFileSync(
      join(ROOT, "node_modules/.bin/tsc"),
      ["-p", "tsconfig.build.json", "--outDir", tmp, "--sourceMap", "false", "--noCheck"],
      {
        cwd: ROOT,
        stdio: "inherit",
      },
    );
    execFileSync(process.execPath, [join(ROOT, "scripts/build-dist.mjs"), bundled], {
      cwd: ROOT,
      stdio: "inherit",
    });
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
    const startup = {
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
    return { startup, healthz: await benchHealthz(tmp, bundled, stateDir) };
  } finally {
    for (const dir of [tmp, bundled, stateDir]) rmSync(dir, { recursive: true, force: true });
  }
}

function report(
  loadBefore: number,
  { startup, healthz }: { startup: StartupFigure; healthz: HealthzPair },
): void {
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
      [
        "CPU to /healthz, `serve` bundled (as built)",
        `${healthz.bundled.cpuMs.toFixed(0)} ms`,
        "< compiled by tsc",
        healthz.bundled.cpuMs < healthz.compiled.cpuMs,
      ],
      ["CPU to /healthz, `serve` compiled by tsc", `${healthz.compiled.cpuMs.toFixed(0)} ms`, "—", null],
    ],
    notes: [
      `\nstart-up: median of ${STARTUP_RUNS} fresh \`node\` processes importing the lists' loaders from src/ compiled by tsc:` +
        ` node boot ${startup.booted.toFixed(0)} ms + imports ${startup.imports.toFixed(0)} ms + loadDomainLists() and TypoIndex` +
        ` ${startup.load.toFixed(0)} ms (${startup.loadCpu.toFixed(0)} ms of CPU; ${formatMegabytes(startup.allocated)} allocated,` +
        ` ${startup.collections} collections); RSS then ${formatMegabytes(startup.rss)}, of it JS heap ${formatMegabytes(startup.heapUsed)}.`,
      `/healthz: median of ${HEALTHZ_PAIRS} paired starts of \`mailrisk serve --workers 1\` (fresh SQLite state, LIST_SOURCES=off):` +
        ` bundled ${healthz.bundled.cpuMs.toFixed(0)} ms CPU, ${healthz.bundled.wallMs.toFixed(0)} ms wall;` +
        ` compiled by tsc ${healthz.compiled.cpuMs.toFixed(0)} ms CPU, ${healthz.compiled.wallMs.toFixed(0)} ms wall.`,
    ],
  });
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  report(loadBefore, await benchStartup());
}

await main();
