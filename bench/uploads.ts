/**
 * Hostile uploads (`npm run bench:uploads`, docs/jobs.md "Limits", docs/security.md "What
 * a hostile upload costs"): for each upload a stranger with a key could send — a
 * 100,000- and a 1,000,000-column header, a 40 MB and a 90 MB one-line file, 1,000,000
 * lines with no unit left — the answer, the growth of the server's resident memory
 * (sampled every 20 ms; target < 100 MB) and the longest `/healthz` answer meanwhile
 * (asked every 50 ms from a process of its own; target < 500 ms). First, a normal upload
 * (BENCH_UPLOAD_ROWS, default 50,000 lines) is timed from its first byte to its 202 on
 * this build and on the build before the bounded uploads (BENCH_UPLOAD_BASELINE, a commit,
 * default b3a5271: harness/baseline-build.ts builds it once), the two taking turns
 * (target: this ≥ 0.95 × before, the best of BENCH_UPLOAD_TURNS rounds of three each,
 * default 2, after a round that warms each), and the server CPU each upload cost (the
 * same target on rows per CPU second, the median upload: wall time on a shared machine
 * measures the neighbours too). An upload must end within the server's request timeout (30 s): keep the rows to
 * what this machine sends in that time. Each service is `mailrisk serve` from its dist/
 * (run `npm run build` first) on a SQLite file of its own, DNS the one loopback server.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { buildBaseline, runBaselineCli } from "../harness/baseline-build.js";
import { createKeyIn } from "../harness/databases.js";
import { watchHealth } from "../harness/health-watcher.js";
import { manyLines, normalCsv, oneLine, wideCsv } from "../harness/hostile-files.js";
import { mailZones } from "../harness/mail-zones.js";
import { cpuSeconds, rawUpload, residentBytes } from "../harness/raw-upload.js";
import { startServiceProcess } from "../harness/service-process.js";
import { startServiceWorld } from "../harness/service-world.js";
import { CANARY_DOMAINS } from "../src/service/checking/create-checker.js";
import { type FigureRow, finish, formatCount, formatMegabytes } from "./report.js";

const ROWS = Number(process.env.BENCH_UPLOAD_ROWS ?? 50_000);
const MB = 1024 * 1024;
const TARGET_GROWTH = 100 * MB;
const TARGET_PAUSE_MS = 500;
const TARGET_RATIO = 0.95;
/** The commit before the bounded uploads (CSV_MAX_COLUMNS and the rest). */
const BASELINE = process.env.BENCH_UPLOAD_BASELINE ?? "b3a5271";
/** The pause after deleting a round's jobs, for their rows' removal. */
const CLEAN_UP_MS = 3000;
/** Rounds of each build after the warming one, taking turns. */
const TURNS = Number(process.env.BENCH_UPLOAD_TURNS ?? 2);

/** What a round of normal uploads gave: the best rows/s, and the server's CPU seconds of each upload. */
interface NormalRound {
  best: number;
  cpu: number[];
}

/**
 * The best rows/s of three normal uploads to `url`, and the CPU each cost the server
 * (process `pid`, all its threads: wall time on a shared machine measures the neighbours
 * too); each cancelled once stored (so no job checks meanwhile), deleted after the
 * three, and a pause for the rows' removal, so that no upload is timed beside another's
 * clean-up.
 */
async function normalRound(url: string, secret: string, pid: number): Promise<NormalRound> {
  const headers = { authorization: `Bearer ${secret}` };
  const ids: string[] = [];
  const cpu: number[] = [];
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const cpuBefore = await cpuSeconds(pid);
    const started = performance.now();
    const answer = await rawUpload(
      `${url}/v2/jobs`,
      { ...headers, "content-type": "text/csv" },
      normalCsv(ROWS),
    );
    if (answer.status !== 202) throw new Error(`a normal upload answered ${answer.status}: ${answer.text}`);
    best = Math.max(best, ROWS / ((performance.now() - started) / 1000));
    cpu.push((await cpuSeconds(pid)) - cpuBefore);
    const { id } = JSON.parse(answer.text) as { id: string };
    ids.push(id);
    await fetch(`${url}/v2/jobs/${id}`, { method: "DELETE", headers });
  }
  for (const id of ids) await fetch(`${url}/v2/jobs/${id}`, { method: "DELETE", headers });
  await new Promise((resolve) => setTimeout(resolve, CLEAN_UP_MS));
  return { best, cpu };
}

/** The middle value (the upper one of an even count). */
function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
}

/**
 * The baseline's service on a database of its own beside `env` (DNS and the rest), with
 * a key its own CLI made; `stop` ends it and removes its database.
 */
async function startBaseline(env: Record<string, string>) {
  const checkout = buildBaseline(BASELINE);
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-bench-baseline-"));
  const baselineEnv = { ...env, DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`, LOG_LEVEL: "silent" };
  runBaselineCli(checkout, ["migrate"], baselineEnv);
  runBaselineCli(checkout, ["plans", "create", "bench", "--quota", "unlimited"], baselineEnv);
  const made = JSON.parse(
    runBaselineCli(checkout, ["keys", "create", "--plan", "bench", "--json"], baselineEnv),
  ) as { key: string };
  const service = await startServiceProcess({
    workers: 1,
    checkout,
    env: { ...baselineEnv, LOG_LEVEL: "info" },
  });
  return {
    url: service.url,
    pid: service.listeningPids()[0] ?? 0,
    secret: made.key,
    stop: async () => {
      await service.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const domains = Array.from({ length: 50 }, (_, i) => `shop-${i}.com`);
  const world = await startServiceWorld({
    zones: mailZones([...CANARY_DOMAINS, ...domains], "own-server"),
    built: true,
  });
  const rows: FigureRow[] = [];
  try {
    const url = world.service.url;
    const pid = world.service.listeningPids()[0] ?? 0;
    const secret = await createKeyIn(world.database.location, "bench", 100_000_000);
    const spent = await createKeyIn(world.database.location, "spent", 1);
    const send = (key: string, type: string, body: Iterable<Buffer>) =>
      rawUpload(`${url}/v2/jobs`, { authorization: `Bearer ${key}`, "content-type": type }, body);
    if ((await send(spent, "text/plain", [Buffer.from("shop-1.com\n")])).status !== 202)
      throw new Error("could not spend the spent key's unit");

    // Before and after take turns, each warmed by an upload first, so that both meet the same load.
    const baseline = await startBaseline(world.env);
    let [before, after] = [0, 0];
    const cpuBefore: number[] = [];
    const cpuAfter: number[] = [];
    try {
      await normalRound(baseline.url, baseline.secret, baseline.pid);
      await normalRound(url, secret, pid);
      for (let turn = 0; turn < TURNS; turn++) {
        const then = await normalRound(baseline.url, baseline.secret, baseline.pid);
        const now = await normalRound(url, secret, pid);
        before = Math.max(before, then.best);
        after = Math.max(after, now.best);
        cpuBefore.push(...then.cpu);
        cpuAfter.push(...now.cpu);
      }
    } finally {
      await baseline.stop();
    }
    // Rows per second of the server's CPU, the median upload of each build.
    const [perCpuBefore, perCpuAfter] = [ROWS / median(cpuBefore), ROWS / median(cpuAfter)];
    rows.push(
      [
        `normal upload (${formatCount(ROWS)} rows), ${BASELINE} (before)`,
        `${formatCount(before)} rows/s, ${formatCount(perCpuBefore)} rows per server CPU second`,
        "",
        null,
      ],
      [
        "normal upload, this build",
        `${formatCount(after)} rows/s (${(after / before).toFixed(2)} ×)`,
        `≥ ${TARGET_RATIO} ×`,
        after >= TARGET_RATIO * before,
      ],
      [
        "normal upload, this build, per server CPU second",
        `${formatCount(perCpuAfter)} rows (${(perCpuAfter / perCpuBefore).toFixed(2)} ×)`,
        `≥ ${TARGET_RATIO} ×`,
        perCpuAfter >= TARGET_RATIO * perCpuBefore,
      ],
    );

    const hostile: [string, string, string, () => Iterable<Buffer>][] = [
      ["100,000-column header (0.7 MB)", secret, "text/csv", () => wideCsv(100_000)],
      ["1,000,000-column header (7.9 MB)", secret, "text/csv", () => wideCsv(1_000_000)],
      ["40 MB one-line file", secret, "text/csv", () => oneLine(40 * MB)],
      ["90 MB one-line file", secret, "text/csv", () => oneLine(90 * MB)],
      ["1,000,000 lines, no unit left", spent, "text/plain", () => manyLines(1_000_000)],
    ];
    for (const [what, key, type, body] of hostile) {
      const rss = await residentBytes(pid);
      const cpu = await cpuSeconds(pid);
      let peak = rss;
      const sampler = setInterval(() => {
        residentBytes(pid).then(
          (now) => {
            peak = Math.max(peak, now);
          },
          () => {},
        );
      }, 20);
      const health = await watchHealth(url, 50);
      const answer = await send(key, type, body()).finally(() => clearInterval(sampler));
      const pauses = await health.stop();
      const longest = Math.max(...pauses);
      const spentCpu = (await cpuSeconds(pid)) - cpu;
      const growth = peak - rss;
      rows.push(
        [
          `${what}: answer`,
          `${answer.status} in ${answer.tookMs.toFixed(0)} ms, server CPU ${spentCpu.toFixed(2)} s`,
          "413 or 429",
          answer.status === 413 || answer.status === 429,
        ],
        [
          `${what}: RSS growth`,
          formatMegabytes(growth),
          `< ${formatMegabytes(TARGET_GROWTH)}`,
          growth < TARGET_GROWTH,
        ],
        [
          `${what}: longest /healthz`,
          `${longest.toFixed(1)} ms`,
          `< ${TARGET_PAUSE_MS} ms`,
          longest < TARGET_PAUSE_MS,
        ],
      );
    }
  } finally {
    await world.stop();
  }
  finish({
    title: "Hostile uploads",
    script: "bench:uploads",
    loadBefore,
    rows,
    knobs: {
      BENCH_UPLOAD_ROWS: String(ROWS),
      BENCH_UPLOAD_BASELINE: BASELINE,
      BENCH_UPLOAD_TURNS: String(TURNS),
    },
  });
}

await main();
