/**
 * List jobs (`npm run bench:jobs`, docs/jobs.md): items per second of a `BENCH_JOB_ROWS`
 * (1,000,000) row job on cached domains, next to `mailrisk check --csv` on the same file
 * in the same run (target: at least 0.7 ×), and the service's peak memory meanwhile
 * (target: under 300 MB). While the job checks, a 100-item job of another account runs
 * (target: done within 10 s), and cached `POST /v2/` checks of a third key go at a fixed
 * rate, as they did idle before the job (target: p99 during ≤ 2 × idle). The service is
 * `mailrisk serve --workers 1` as deployed (`dist/`: run `npm run build` first) on a
 * SQLite file; DNS is the loopback test server in a child process; a first `check --csv`
 * of every distinct domain fills the database's records, so every run answers from them.
 * The job's time runs from the first byte uploaded to `done`; its memory is the process's
 * VmHWM.
 *
 * Then the fresh-domain case: two `serve` processes on one PostgreSQL database, a
 * `BENCH_FRESH_ROWS` (300,000) item job over `BENCH_FRESH_DOMAINS` (5,000) domains no one
 * has checked yet, and keyed cached checks sent one after another (each when the last
 * answered) to the first instance, idle and then while the job runs (target: p99 during
 * ≤ 2 × idle), and the CPU each instance, the DNS server and the whole machine used
 * meanwhile.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { createKeysIn, createTestDatabase } from "../harness/databases.js";
import { type DnsServerProcess, startDnsServerProcess } from "../harness/dns-server-process.js";
import { startServiceProcess } from "../harness/service-process.js";
import { trafficWorld } from "../harness/traffic-world.js";
import { run as check } from "../src/cli/check-command.js";
import { loadConfig } from "../src/config.js";
import { openStore } from "../src/store/index.js";
import { type FigureRow, finish, formatCount, formatMegabytes, percentile } from "./report.js";

const ROWS = Number(process.env.BENCH_JOB_ROWS ?? 1_000_000);
const DOMAINS = 2_000;
const TARGET_RATIO = 0.7;
const TARGET_BYTES = 300 * 1024 * 1024;
/** Cached checks a second of the latency probe, and how long it runs idle. */
const PROBE_RATE = 100;
const IDLE_SECONDS = 10;
/** Seconds into the big job's checking when the small job is uploaded; its items; its target. */
const SMALL_AFTER_SECONDS = 1;
const SMALL_ITEMS = 100;
const SMALL_TARGET_SECONDS = 10;
const TARGET_P99_RATIO = 2;
/** The fresh-domain case: its job's items and domains, and the cached domains its probe checks. */
const FRESH_ROWS = Number(process.env.BENCH_FRESH_ROWS ?? 300_000);
const FRESH_DOMAINS = Number(process.env.BENCH_FRESH_DOMAINS ?? 5_000);
const FRESH_PROBE_DOMAINS = 50;
const FRESH_IDLE_SECONDS = 10;
/** The cases to run: \`cached\`, \`fresh\` or both (comma-separated). */
const CASES = (process.env.BENCH_JOBS_CASE ?? "cached,fresh").split(",");

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

/** A process's CPU time (user + system) so far in seconds: fields 14 and 15 of /proc/<pid>/stat, in ticks of 10 ms. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The CPU time every core of the machine has been busy so far, in seconds. */
function machineCpuSeconds(): number {
  return cpus().reduce((sum, { times }) => sum + times.user + times.nice + times.sys + times.irq, 0) / 1000;
}

interface JobAnswer {
  id: string;
  status: string;
  done: number;
}

async function showJob(url: string, secret: string, id: string): Promise<JobAnswer> {
  const answer = await fetch(`${url}/v2/jobs/${id}`, { headers: { authorization: `Bearer ${secret}` } });
  return (await answer.json()) as JobAnswer;
}

/** Uploads a list as a job; its id once the upload is stored. */
async function upload(url: string, secret: string, type: string, body: string): Promise<string> {
  const created = await fetch(`${url}/v2/jobs`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": type },
    body,
  });
  if (created.status !== 202) throw new Error(`upload answered ${created.status}: ${await created.text()}`);
  return ((await created.json()) as JobAnswer).id;
}

/** Polls every `everyMs` until the job is done (of `items`); throws if it ends otherwise. */
async function untilDone(url: string, secret: string, id: string, items: number, everyMs: number) {
  for (;;) {
    const job = await showJob(url, secret, id);
    if (job.status === "done" && job.done === items) return;
    if (job.status !== "queued" && job.status !== "running") throw new Error(`the job ended ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Keyed cached `POST /v2/` checks of `domains` until `stop` resolves: at `pace` a second,
 * each sent on time whatever the answers before it, or `"sequential"`, each sent when the
 * last answered. Each answer's time in ms, sorted (a non-200 throws).
 */
async function probe(
  url: string,
  secret: string,
  domains: readonly string[],
  stop: Promise<unknown>,
  pace: number | "sequential",
) {
  const agent = new Agent({ keepAlive: true, maxSockets: pace === "sequential" ? 1 : 8 });
  const { hostname, port } = new URL(url);
  const times: number[] = [];
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const check = (domain: string) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ domain });
      const started = performance.now();
      const call = request(
        {
          agent,
          hostname,
          port,
          path: "/v2/",
          method: "POST",
          headers: {
            authorization: `Bearer ${secret}`,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          },
        },
        (response) => {
          response.resume();
          response.on("end", () => {
            if (response.statusCode !== 200) reject(new Error(`POST /v2/ answered ${response.statusCode}`));
            times.push(performance.now() - started);
            resolve();
          });
        },
      );
      call.on("error", reject);
      call.end(body);
    });
  const domainAt = (i: number) => domains[i % domains.length] as string;
  if (pace === "sequential") {
    for (let i = 0; !stopped; i++) await check(domainAt(i));
  } else {
    const sent: Promise<void>[] = [];
    const started = performance.now();
    for (let i = 0; !stopped; i++) {
      const wait = started + (i * 1000) / pace - performance.now();
      if (wait > 0) await sleep(wait);
      if (!stopped) sent.push(check(domainAt(i)));
    }
    await Promise.all(sent);
  }
  agent.destroy();
  return times.sort((a, b) => a - b);
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** One case's probe rows: p99 idle, p99 during the job, and their ratio against the target. */
function latencyRows(label: string, idle: number[], during: number[]): FigureRow[] {
  const [idleP99, duringP99] = [percentile(idle, 99), percentile(during, 99)];
  const ratio = duringP99 / idleP99;
  return [
    [
      `${label}, idle (${formatCount(idle.length)})`,
      `${ms(idleP99)} (p50 ${ms(percentile(idle, 50))})`,
      "",
      null,
    ],
    [
      `${label}, during the job (${formatCount(during.length)})`,
      `${ms(duringP99)} (p50 ${ms(percentile(during, 50))})`,
      "",
      null,
    ],
    [
      `${label}: p99 during / idle`,
      `${ratio.toFixed(2)} ×`,
      `≤ ${TARGET_P99_RATIO} ×`,
      ratio <= TARGET_P99_RATIO,
    ],
  ];
}

/**
 * The fresh-domain case on two instances sharing PostgreSQL: the probe's answer times
 * idle and during a FRESH_ROWS-item job over FRESH_DOMAINS domains never checked, and the
 * job's items/s.
 */
async function freshRun(env: Record<string, string>, domains: readonly string[], dns: DnsServerProcess) {
  const probeDomains = domains.slice(0, FRESH_PROBE_DOMAINS);
  const jobDomains = domains.slice(FRESH_PROBE_DOMAINS);
  const database = await createTestDatabase("postgres");
  const services: Awaited<ReturnType<typeof startServiceProcess>>[] = [];
  try {
    const serviceEnv = { ...env, DATABASE_URL: database.url, LOG_LEVEL: "info" };
    for (let i = 0; i < 2; i++)
      services.push(await startServiceProcess({ workers: 1, built: true, env: serviceEnv }));
    const [first] = services as [(typeof services)[number]];
    const [job, probeKey] = (await createKeysIn(database.location, "bench", 1_000_000_000, 2)) as [
      string,
      string,
    ];
    // The probe's domains are looked up once, so every probe answer is a cached one.
    await probe(first.url, probeKey, probeDomains, sleep(2000), "sequential");
    const idle = await probe(
      first.url,
      probeKey,
      probeDomains,
      sleep(FRESH_IDLE_SECONDS * 1000),
      "sequential",
    );
    const lines = Array.from(
      { length: FRESH_ROWS },
      (_, i) => `fresh${i}@${jobDomains[i % jobDomains.length]}`,
    ).join("\n");
    const pids = services.map((service) => service.listeningPids()[0] as number);
    const cpuNow = async () => ({
      instances: pids.map(cpuSeconds),
      dns: (await dns.stats()).cpuMicros / 1e6,
      machine: machineCpuSeconds(),
    });
    const cpuBefore = await cpuNow();
    const started = performance.now();
    const id = await upload(first.url, job, "text/plain", lines);
    const done = untilDone(first.url, job, id, FRESH_ROWS, 200);
    const during = await probe(first.url, probeKey, probeDomains, done, "sequential");
    await done;
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = await cpuNow();
    // Cores used on average while the job ran.
    const cores = (after: number, before: number) => (after - before) / seconds;
    const cpu = {
      instances: cpuAfter.instances.map((after, i) => cores(after, cpuBefore.instances[i] as number)),
      dns: cores(cpuAfter.dns, cpuBefore.dns),
      machine: cores(cpuAfter.machine, cpuBefore.machine),
    };
    return { idle, during, rate: FRESH_ROWS / seconds, cpu };
  } finally {
    for (const service of services) await service.stop();
    await database.drop();
  }
}

/**
 * The big job: items/s from the first byte to done, the upload's seconds; while it checks,
 * the probe's answer times and the seconds a small job of another account took to be done.
 */
async function jobRun(
  url: string,
  keys: { job: string; probe: string; small: string },
  csv: string,
  domains: readonly string[],
) {
  const started = performance.now();
  const id = await upload(url, keys.job, "text/csv", csv);
  const uploadSeconds = (performance.now() - started) / 1000;
  const done = untilDone(url, keys.job, id, ROWS, 100);
  const during = probe(url, keys.probe, domains, done, PROBE_RATE);
  const small = (async () => {
    await sleep(SMALL_AFTER_SECONDS * 1000);
    const running = await showJob(url, keys.job, id);
    const smallStarted = performance.now();
    const lines = Array.from({ length: SMALL_ITEMS }, (_, i) => `small${i}@${domains[i % domains.length]}`);
    const smallId = await upload(url, keys.small, "text/plain", lines.join("\n"));
    await untilDone(url, keys.small, smallId, SMALL_ITEMS, 50);
    const seconds = (performance.now() - smallStarted) / 1000;
    const after = await showJob(url, keys.job, id);
    // The figure means something only if the big job was checking throughout.
    return { seconds, bigRunning: running.status === "running" && after.status === "running" };
  })();
  await done;
  const rate = ROWS / ((performance.now() - started) / 1000);
  return { rate, uploadSeconds, during: await during, small: await small };
}

/** A key of a new account: its jobs take turns as the account's. */
async function accountKey(location: { dialect: "sqlite"; path: string }): Promise<string> {
  const store = await openStore(location);
  try {
    const made = await store.accounts.createAccount({
      email: "small@bench.example",
      passwordHash: null,
      role: "member",
      plan: "bench",
      now: new Date(),
    });
    return made.secret;
  } finally {
    await store.close();
  }
}

/** The cached case on one instance and SQLite: the job against \`check --csv\`, its memory, the small job and the probe. */
async function cachedCase(
  env: Record<string, string>,
  dir: string,
  domains: readonly string[],
): Promise<FigureRow[]> {
  await csvRun(env, csvOf(domains, DOMAINS), DOMAINS);
  const csv = csvOf(domains, ROWS);
  const csvRate = await csvRun(env, csv, ROWS);
  const service = await startServiceProcess({ workers: 1, built: true, env: { ...env, LOG_LEVEL: "info" } });
  try {
    const pid = service.listeningPids()[0] as number;
    const atStart = peakBytes(pid, "VmRSS");
    const location = { dialect: "sqlite", path: join(dir, "mailrisk.db") } as const;
    const [job, probeKey] = (await createKeysIn(location, "bench", 1_000_000_000, 2)) as [string, string];
    const small = await accountKey(location);
    const idle = await probe(service.url, probeKey, domains, sleep(IDLE_SECONDS * 1000), PROBE_RATE);
    const run = await jobRun(service.url, { job, probe: probeKey, small }, csv, domains);
    const peak = peakBytes(pid);
    const ratio = run.rate / csvRate;
    return [
      [`job of ${formatCount(ROWS)} rows, upload to done`, `${formatCount(run.rate)} items/s`, "", null],
      ["of which the upload (stored, 202)", `${run.uploadSeconds.toFixed(1)} s`, "", null],
      ["check --csv, same file", `${formatCount(csvRate)} rows/s`, "", null],
      ["job / check --csv", `${ratio.toFixed(2)} ×`, `≥ ${TARGET_RATIO} ×`, ratio >= TARGET_RATIO],
      ["service memory at start (VmRSS)", formatMegabytes(atStart), "", null],
      ["service peak memory (VmHWM)", formatMegabytes(peak), "< 300 MB", peak < TARGET_BYTES],
      [
        `${SMALL_ITEMS}-item job of another account`,
        `${run.small.seconds.toFixed(2)} s${run.small.bigRunning ? "" : " (big job not running throughout!)"}`,
        `≤ ${SMALL_TARGET_SECONDS} s`,
        run.small.bigRunning && run.small.seconds <= SMALL_TARGET_SECONDS,
      ],
      ...latencyRows(`cached POST /v2/ p99 at ${PROBE_RATE}/s`, idle, run.during),
    ];
  } finally {
    await service.stop();
  }
}

/** The fresh case's figures. */
async function freshCase(
  env: Record<string, string>,
  domains: readonly string[],
  dns: DnsServerProcess,
): Promise<FigureRow[]> {
  const fresh = await freshRun(env, domains, dns);
  return [
    [
      `fresh: job of ${formatCount(FRESH_ROWS)} items over ${formatCount(FRESH_DOMAINS)} new domains, 2 instances on PostgreSQL`,
      `${formatCount(fresh.rate)} items/s`,
      "",
      null,
    ],
    ...latencyRows("fresh: keyed cached POST /v2/ p99, sequential", fresh.idle, fresh.during),
    [
      "fresh: CPU during the job, in cores (instance 1, 2; DNS server; machine)",
      `${fresh.cpu.instances.map((used) => used.toFixed(2)).join(", ")}; ${fresh.cpu.dns.toFixed(2)}; ${fresh.cpu.machine.toFixed(2)} of ${cpus().length}`,
      "",
      null,
    ],
  ];
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  // One DNS world: the cached case's domains first, then the fresh case's.
  const world = trafficWorld({ domains: DOMAINS + FRESH_PROBE_DOMAINS + FRESH_DOMAINS });
  const { fixture } = world;
  const domains = world.domains.slice(0, DOMAINS);
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
    const cached = CASES.includes("cached") ? await cachedCase(env, dir, domains) : [];
    const fresh = CASES.includes("fresh") ? await freshCase(env, world.domains.slice(DOMAINS), dns) : [];
    finish({
      title: "mailrisk list jobs",
      script: "bench:jobs",
      loadBefore,
      rows: [...cached, ...fresh],
      knobs: {
        BENCH_JOBS_CASE: CASES.join(","),
        BENCH_JOB_ROWS: ROWS,
        BENCH_FRESH_ROWS: FRESH_ROWS,
        BENCH_FRESH_DOMAINS: FRESH_DOMAINS,
      },
      notes: [
        ...(cached.length > 0
          ? [
              `\nA CSV of ${formatCount(ROWS)} rows (quoted names with commas, CRLF) over ${formatCount(DOMAINS)} working domains whose records are in the database, checked by \`check --csv\` in this process and by a job of \`mailrisk serve --workers 1\` (dist/, as deployed) on the same SQLite file; loopback DNS (child process), domain age off. The small job (text, ${SMALL_ITEMS} addresses) is uploaded ${SMALL_AFTER_SECONDS} s into the big job's checking by a key of an account; the probe sends cached checks of a third key at ${PROBE_RATE}/s (node:http, keep-alive), ${IDLE_SECONDS} s idle, then from the big job's 202 to its done.`,
            ]
          : []),
        ...(fresh.length > 0
          ? [
              `The fresh case: two \`mailrisk serve --workers 1\` on one PostgreSQL database (DNS the same loopback server), a text job of ${formatCount(FRESH_ROWS)} addresses over ${formatCount(FRESH_DOMAINS)} domains never checked before, uploaded to the first; a key's cached checks of ${FRESH_PROBE_DOMAINS} other domains go to the first instance one after another (each sent when the last answered), ${FRESH_IDLE_SECONDS} s idle, then from the upload to the job's done.`,
            ]
          : []),
      ],
    });
  } finally {
    dns.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
