/**
 * List jobs (`npm run bench:jobs`, docs/jobs.md): items per second of a `BENCH_JOB_ROWS`
 * (1,000,000) row job on cached domains, next to `mailrisk check --csv` on the same file
 * in the same run (target: at least 0.7 ×), and the service's peak memory meanwhile
 * (target: under 300 MB). The service is `mailrisk serve --workers 1` on a SQLite file;
 * DNS is the loopback test server in a child process; a first `check --csv` of every
 * distinct domain fills the database's records, so both runs answer from them. The job's
 * time runs from the first byte uploaded to `done`; its memory is the process's VmHWM.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { createKeysIn } from "../harness/databases.js";
import { startDnsServerProcess } from "../harness/dns-server-process.js";
import { startServiceProcess } from "../harness/service-process.js";
import { trafficWorld } from "../harness/traffic-world.js";
import { run as check } from "../src/cli/check-command.js";
import { loadConfig } from "../src/config.js";
import { openStore } from "../src/store/index.js";
import { finish, formatCount, formatMegabytes } from "./report.js";

const ROWS = Number(process.env.BENCH_JOB_ROWS ?? 1_000_000);
const DOMAINS = 2_000;
const TARGET_RATIO = 0.7;
const TARGET_BYTES = 300 * 1024 * 1024;

function csvOf(domains: readonly string[], rows: number): string {
  const lines = ["id,name,email"];
  for (let i = 0; i < rows; i++)
    lines.push(`${i},"Person ${i}, the ${i % 7}th",user${i}@${domains[i % domains.length]}`);
  return `${lines.join("\r\n")}\r\n`;
}

/** One `check --csv` over `csv` in this process; rows/s. */
async function csvRun(env: Record<string, string>, csv: string, rows: number): Promise<number> {
  const config = loadConfig(env);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const started = performance.now();
  const code = await check(["--csv"], {
    config,
    stdin: Readable.from([csv]),
    stdout: sink,
    stderr: new Writable({ write: (_chunk, _encoding, done) => done() }),
    clock: () => new Date(),
    openStore: () => openStore(config.database),
  });
  if (code !== 0) throw new Error(`check --csv exited ${code}`);
  return rows / ((performance.now() - started) / 1000);
}

/** A process's peak resident memory (VmHWM), or its current (VmRSS). */
function peakBytes(pid: number, field = "VmHWM"): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((entry) => entry.startsWith(`${field}:`));
  return Number(/(\d+)\s*kB/.exec(line ?? "")?.[1] ?? Number.NaN) * 1024;
}

/** Uploads `csv` as a job and waits for done; items/s from the first byte to done. */
async function jobRun(
  url: string,
  secret: string,
  csv: string,
  rows: number,
): Promise<{ rate: number; uploadSeconds: number }> {
  const headers = { authorization: `Bearer ${secret}` };
  const started = performance.now();
  const created = await fetch(`${url}/v2/jobs`, {
    method: "POST",
    headers: { ...headers, "content-type": "text/csv" },
    body: csv,
  });
  if (created.status !== 202) throw new Error(`upload answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const uploadSeconds = (performance.now() - started) / 1000;
  for (;;) {
    const job = (await (await fetch(`${url}/v2/jobs/${id}`, { headers })).json()) as {
      status: string;
      done: number;
    };
    if (job.status === "done" && job.done === rows) break;
    if (job.status !== "queued" && job.status !== "running") throw new Error(`the job ended ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { rate: rows / ((performance.now() - started) / 1000), uploadSeconds };
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const { domains, fixture } = trafficWorld({ domains: DOMAINS });
  const dns = await startDnsServerProcess(fixture);
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-bench-jobs-"));
  const env = {
    DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: "2000",
    AGE_LOOKUP: "off",
    LOG_LEVEL: "silent",
  };
  try {
    await csvRun(env, csvOf(domains, DOMAINS), DOMAINS);
    const csv = csvOf(domains, ROWS);
    const csvRate = await csvRun(env, csv, ROWS);
    const service = await startServiceProcess({ workers: 1, env: { ...env, LOG_LEVEL: "info" } });
    try {
      const pid = service.listeningPids()[0] as number;
      const atStart = peakBytes(pid, "VmRSS");
      const [secret] = await createKeysIn(
        { dialect: "sqlite", path: join(dir, "mailrisk.db") },
        "bench",
        1_000_000_000,
        1,
      );
      const { rate: jobRate, uploadSeconds } = await jobRun(service.url, secret as string, csv, ROWS);
      console.log(`upload ${uploadSeconds.toFixed(1)} s of ${(ROWS / jobRate).toFixed(1)} s`);
      const peak = peakBytes(pid);
      const ratio = jobRate / csvRate;
      finish({
        title: "mailrisk list jobs",
        script: "bench:jobs",
        loadBefore,
        rows: [
          [`job of ${formatCount(ROWS)} rows, upload to done`, `${formatCount(jobRate)} items/s`, "", null],
          ["check --csv, same file", `${formatCount(csvRate)} rows/s`, "", null],
          ["job / check --csv", `${ratio.toFixed(2)} ×`, `≥ ${TARGET_RATIO} ×`, ratio >= TARGET_RATIO],
          ["service memory at start (VmRSS)", formatMegabytes(atStart), "", null],
          ["service peak memory (VmHWM)", formatMegabytes(peak), "< 300 MB", peak < TARGET_BYTES],
        ],
        knobs: { BENCH_JOB_ROWS: ROWS },
        notes: [
          `\nA CSV of ${formatCount(ROWS)} rows (quoted names with commas, CRLF) over ${formatCount(DOMAINS)} working domains whose records are in the database, checked by \`check --csv\` in this process and by a job of \`mailrisk serve --workers 1\` on the same SQLite file; loopback DNS (child process), domain age off.`,
        ],
      });
    } finally {
      await service.stop();
    }
  } finally {
    dns.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
