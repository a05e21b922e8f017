/**
 * Re-check benchmark (`npm run bench:recheck`): the day after a busy day. Checks
 * BENCH_RECHECK_DOMAINS distinct domains of a generated traffic world
 * (harness/traffic-world.ts, a loopback DNS server in a child process), waits until
 * every record has expired (RECORD_TTL=1), and checks them all again, through the CLI
 * (`mailrisk check --json -`) and through the HTTP server (`POST /v2/`, 64 in flight),
 * on SQLite and on PostgreSQL. The second pass must take at most 2 × the first, and the
 * server's `/healthz`, asked every 50 ms throughout, must always answer within 100 ms.
 * Domain age goes to loopback RDAP and WHOIS servers that know no domain.
 *
 * On one small machine the service shares the cores with what stands in for other
 * machines: the load generator, the DNS server and the health watcher. So the service
 * runs one worker (a core of its own), and the load generator and the DNS server run at
 * nice 10 (recheck-load.ts): at the service's own priority they take the CPU it needs to
 * answer in time, and what is measured is the scheduler, not the service.
 */
import "./test-names.js";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type DatabaseKind } from "../harness/databases.js";
import { startDnsServerProcess } from "../harness/dns-server-process.js";
import { watchHealth } from "../harness/health-watcher.js";
import { startRdapServer, startWhoisServer, writeBootstrap } from "../harness/loopback-registries.js";
import { trafficWorld } from "../harness/traffic-world.js";
import { startRecheckLoad } from "./recheck-load.js";
import { type FigureRow, finish, formatCount, percentile } from "./report.js";

const DOMAINS = Number(process.env.BENCH_RECHECK_DOMAINS ?? 30_000);
const RUNS = Number(process.env.BENCH_RECHECK_RUNS ?? 1);
const KINDS = (process.env.BENCH_RECHECK_DATABASES ?? "sqlite,postgres").split(",") as DatabaseKind[];
const PATHS = (process.env.BENCH_RECHECK_PATHS ?? "cli,http").split(",");
const IN_FLIGHT = 64;
/** Nice value of the load generator and the DNS server: they stand in for other machines. */
const LOAD_NICENESS = 10;
const HEALTH_LIMIT_MS = 100;
const CLI = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));

type Env = Record<string, string>;

function mailrisk(args: string[], env: Env): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
}

async function output(child: ChildProcess, stdin = ""): Promise<string> {
  child.stdin?.end(stdin);
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const [code] = await once(child, "exit");
  if (code !== 0 && code !== 1) throw new Error(`mailrisk exited with ${code}`);
  return text;
}

/** Seconds one `mailrisk check --json -` over every domain takes; every line must be a record. */
async function cliPass(domains: readonly string[], env: Env): Promise<number> {
  const started = performance.now();
  const lines = (await output(mailrisk(["check", "--json", "-"], env), `${domains.join("\n")}\n`))
    .trim()
    .split("\n");
  const seconds = (performance.now() - started) / 1000;
  const records = lines.filter((line) => (JSON.parse(line) as { domain?: string }).domain !== undefined);
  if (records.length !== domains.length)
    throw new Error(`${records.length} records for ${domains.length} inputs`);
  return seconds;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

interface Passes {
  first: number;
  second: number;
  /** How long each `/healthz` answer took during both passes, ascending, asked from another process (HTTP only). */
  health?: number[];
  /** The longest the service's event loop was held up during both passes (HTTP only). */
  eventLoopMaxMs?: number;
}

/** The service's longest event-loop delay since the last scrape, from its own /metrics (prom-client). */
async function eventLoopMaxMs(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = /^mailrisk_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  return line ? Number(line[1]) * 1000 : Number.NaN;
}

async function throughCli(domains: readonly string[], env: Env): Promise<Passes> {
  const first = await cliPass(domains, env);
  await sleep(2_000);
  return { first, second: await cliPass(domains, env) };
}

async function throughHttp(domains: readonly string[], env: Env): Promise<Passes> {
  await output(mailrisk(["plans", "create", "bench", "--quota", "100000000"], env));
  const { key } = JSON.parse(
    await output(mailrisk(["keys", "create", "--plan", "bench", "--json"], env)),
  ) as {
    key: string;
  };
  const port = await freePort();
  // One worker: the other core is for the load generator, the DNS server and the watcher.
  // METRICS_PUBLIC: the event-loop figure is read from the service's own /metrics.
  const server = mailrisk(["serve", "--workers", "1"], { ...env, PORT: String(port), METRICS_PUBLIC: "on" });
  server.stdout?.resume();
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let tries = 0; ; tries++) {
      const up = await fetch(`${url}/healthz`).then(
        () => true,
        () => false,
      );
      if (up) break;
      if (tries > 100) throw new Error("the server did not start");
      await sleep(100);
    }
    await eventLoopMaxMs(url); // starts the service's event-loop delay histogram afresh
    const load = await startRecheckLoad({ url, key, inFlight: IN_FLIGHT, domains }, LOAD_NICENESS);
    const health = await watchHealth(url);
    try {
      const first = await load.pass();
      await sleep(2_000);
      const second = await load.pass();
      // The refreshes the second pass started run on; the server must stay responsive meanwhile.
      await sleep(5_000);
      return { first, second, health: await health.stop(), eventLoopMaxMs: await eventLoopMaxMs(url) };
    } finally {
      await load.stop();
    }
  } finally {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const world = trafficWorld({ domains: DOMAINS });
  const dns = await startDnsServerProcess(world.fixture, { niceness: LOAD_NICENESS });
  const rdap = await startRdapServer(() => ({ status: 404 }));
  const whois = await startWhoisServer(() => "No match\r\n");
  const rows: FigureRow[] = [];
  try {
    const bootstrap = await writeBootstrap({ com: rdap.baseUrl, net: rdap.baseUrl });
    for (const kind of KINDS) {
      for (const [path, run] of [
        ["CLI", throughCli],
        ["HTTP", throughHttp],
      ] as const) {
        if (!PATHS.includes(path.toLowerCase())) continue;
        for (let attempt = 1; attempt <= RUNS; attempt++) {
          const database = await createTestDatabase(kind);
          try {
            const env: Env = {
              DATABASE_URL: database.url,
              DNS_SERVERS: dns.address,
              RDAP_BOOTSTRAP_FILE: bootstrap,
              WHOIS_SERVER: whois.address,
              RECORD_TTL: "1",
              LOG_LEVEL: "warn",
            };
            // Only serve and migrate create a database; the CLI's other commands need one.
            await output(mailrisk(["migrate"], env));
            const passes = await run(world.domains, env);
            const ratio = passes.second / passes.first;
            const label = `${path} on ${kind}, run ${attempt}`;
            rows.push([
              `${label}: second / first pass`,
              `${passes.second.toFixed(1)} s / ${passes.first.toFixed(1)} s = ${ratio.toFixed(2)}`,
              "≤ 2",
              ratio <= 2,
            ]);
            if (passes.eventLoopMaxMs !== undefined) {
              rows.push([
                `${label}: longest event-loop delay`,
                `${passes.eventLoopMaxMs.toFixed(0)} ms`,
                "",
                null,
              ]);
            }
            if (passes.health !== undefined) {
              const p99 = percentile(passes.health, 99);
              const slowest = passes.health.at(-1) ?? Number.NaN;
              rows.push([
                `${label}: /healthz (${formatCount(passes.health.length)} asked): p99, slowest`,
                `${p99.toFixed(0)} ms, ${slowest.toFixed(0)} ms`,
                `≤ ${HEALTH_LIMIT_MS} ms`,
                slowest <= HEALTH_LIMIT_MS,
              ]);
            }
          } finally {
            await database.drop();
          }
        }
      }
    }
  } finally {
    dns.stop();
    await Promise.all([rdap.close(), whois.close()]);
  }
  finish({
    title: `Re-checking ${formatCount(DOMAINS)} expired records`,
    script: "bench:recheck",
    loadBefore,
    rows,
    knobs: { BENCH_RECHECK_DOMAINS: DOMAINS, BENCH_RECHECK_RUNS: RUNS },
  });
}

await main();
