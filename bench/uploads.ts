/**
 * Hostile uploads (`npm run bench:uploads`, docs/jobs.md "Limits", docs/security.md "What
 * a hostile upload costs"): for each upload a stranger with a key could send — a
 * 100,000- and a 1,000,000-column header, a 40 MB and a 90 MB one-line file, 1,000,000
 * lines with no unit left — the answer, the growth of the server's resident memory
 * (sampled every 20 ms; target < 100 MB) and the longest `/healthz` answer meanwhile
 * (asked every 50 ms from a process of its own; target < 500 ms). Around them, a normal
 * upload (BENCH_UPLOAD_ROWS, default 50,000 lines) is timed from its first byte to its
 * 202, before and after (target: after ≥ 0.95 × before, the best of three each, after a
 * first upload that warms the server). An upload must end within the server's request
 * timeout (30 s): keep the rows to what this machine sends in that time. The
 * service is `mailrisk serve` on a SQLite file, DNS the loopback test server.
 */
import { loadavg } from "node:os";
import { createKeyIn } from "../harness/databases.js";
import { watchHealth } from "../harness/health-watcher.js";
import { mailZones } from "../harness/mail-zones.js";
import { cpuSeconds, rawUpload, residentBytes } from "../harness/raw-upload.js";
import { startServiceWorld } from "../harness/service-world.js";
import { CANARY_DOMAINS } from "../src/service/checking/create-checker.js";
import { type FigureRow, finish, formatCount, formatMegabytes } from "./report.js";

const ROWS = Number(process.env.BENCH_UPLOAD_ROWS ?? 50_000);
const MB = 1024 * 1024;
const TARGET_GROWTH = 100 * MB;
const TARGET_PAUSE_MS = 500;
const TARGET_RATIO = 0.95;

function* wideCsv(columns: number): Generator<Buffer> {
  const names: string[] = [];
  for (let i = 0; i < columns; i++) {
    names.push(i === 0 ? "email" : `c${i}`);
    if (names.length === 10_000) {
      yield Buffer.from(`${names.join(",")},`);
      names.length = 0;
    }
  }
  yield Buffer.from(`${names.join(",")}\n`);
  for (let i = 0; i < 300; i++) yield Buffer.from(`user${i}@shop-1.com,x\n`);
}

function* oneLine(bytes: number): Generator<Buffer> {
  yield Buffer.from("email\n");
  const piece = Buffer.alloc(64 * 1024, 0x61);
  for (let sent = 0; sent < bytes; sent += piece.length) yield piece;
  yield Buffer.from("\n");
}

function* manyLines(lines: number): Generator<Buffer> {
  const block = Buffer.from("user@shop-1.com\n".repeat(10_000));
  for (let sent = 0; sent < lines; sent += 10_000) yield block;
}

function* normalCsv(rows: number): Generator<Buffer> {
  yield Buffer.from("id,name,email\r\n");
  for (let start = 0; start < rows; start += 10_000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(rows, start + 10_000); i++)
      lines.push(`${i},"Person ${i}",user${i}@shop-${i % 50}.com`);
    yield Buffer.from(`${lines.join("\r\n")}\r\n`);
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const domains = Array.from({ length: 50 }, (_, i) => `shop-${i}.com`);
  const world = await startServiceWorld({ zones: mailZones([...CANARY_DOMAINS, ...domains], "own-server") });
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

    /** The best rows/s of three normal uploads, each cancelled and deleted once stored. */
    const normal = async (): Promise<number> => {
      let best = 0;
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        const answer = await send(secret, "text/csv", normalCsv(ROWS));
        if (answer.status !== 202)
          throw new Error(`a normal upload answered ${answer.status}: ${answer.text}`);
        best = Math.max(best, ROWS / ((performance.now() - started) / 1000));
        const { id } = JSON.parse(answer.text) as { id: string };
        const headers = { authorization: `Bearer ${secret}` };
        await fetch(`${url}/v2/jobs/${id}`, { method: "DELETE", headers });
        await fetch(`${url}/v2/jobs/${id}`, { method: "DELETE", headers });
      }
      return best;
    };
    await normal();
    const before = await normal();

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

    const after = await normal();
    rows.push(
      [`normal upload (${formatCount(ROWS)} rows) before`, `${formatCount(before)} rows/s`, "", null],
      [
        `normal upload after`,
        `${formatCount(after)} rows/s (${(after / before).toFixed(2)} ×)`,
        `≥ ${TARGET_RATIO} ×`,
        after >= TARGET_RATIO * before,
      ],
    );
  } finally {
    await world.stop();
  }
  finish({
    title: "Hostile uploads",
    script: "bench:uploads",
    loadBefore,
    rows,
    knobs: { BENCH_UPLOAD_ROWS: String(ROWS) },
  });
}

await main();
