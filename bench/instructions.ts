/**
 * Instructions per cached request (`npm run bench:instructions`): the measure that does
 * not drift with the machine's other tenants. `mailrisk serve` as deployed (bench/served.ts,
 * `--workers 1`: the default on a 2-core machine, where the one worker is the process
 * itself) and the same-work bare route (bench/bare-route.ts), each run under
 * `valgrind --tool=callgrind` with instrumentation off until warmed up
 * (`--instr-atstart=no`; the V8 JIT needs `--smc-check=all-non-file`). For each route:
 * BENCH_WARMUP requests (default 3,000) uninstrumented, instrumentation switched on
 * (`callgrind_control -i on`) for BENCH_WARMUP_ON more (default 500), the counters
 * zeroed (`-z`), BENCH_REQUESTS requests (default 3,000) at 50 connections, then a dump
 * (`--dump`) whose total is the instructions of those requests, every thread of the
 * process (the JIT's and the collector's included). Prints instructions per request of
 * `POST /v2/` (form body) and `GET /`, of the bare route's twins, and their ratio
 * bare ÷ mailrisk, which reads like the rate ratio of `npm run bench:http` ("× bare").
 * The work a server does by the clock is measured idle for BENCH_IDLE_SECONDS (default
 * 10) after each route and taken off (see `count`); both figures are printed.
 */
import "./test-names.js";
import { execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { CONNECTIONS } from "./load.js";
import { describeMachine } from "./machine.js";
import { type FigureRow, finish, formatCount } from "./report.js";
import {
  answersOf,
  build,
  DOMAIN,
  openWorld,
  SERVER_HOST,
  type Served,
  serveBare,
  serveMailrisk,
  type World,
} from "./served.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);
const WARMUP_ON = Number(process.env.BENCH_WARMUP_ON ?? 500);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);

type Request = Parameters<typeof autocannon>[0];

function valgrind(dir: string, name: string): string[] {
  return [
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    "--smc-check=all-non-file",
    "--trace-children=no",
    `--callgrind-out-file=${join(dir, `callgrind.${name}.out`)}`,
  ];
}

/** callgrind_control finds a run by names valgrind made from HOST, which the servers are started with. */
function control(pid: number, ...args: string[]): void {
  execFileSync("callgrind_control", [...args, String(pid)], {
    stdio: "ignore",
    env: { ...process.env, HOST: SERVER_HOST },
  });
}

const started = Date.now();
function progress(what: string): void {
  process.stderr.write(`${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s  ${what}\n`);
}

/** Sends `amount` requests; the answered ones (a request in a hundred may time out under valgrind, and is not counted). */
async function send(request: Request, amount: number): Promise<number> {
  const result = await autocannon({ ...request, connections: CONNECTIONS, amount, timeout: 120 });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > amount / 100) throw new Error(`${failed} of ${amount} requests to ${request.url} failed`);
  return amount - failed;
}

/** The instructions of the dump written since `before` (file names). */
async function dumpedTotal(dir: string, name: string, before: Set<string>): Promise<number> {
  for (let tries = 0; tries < 3000; tries++) {
    const files = (await readdir(dir)).filter(
      (file) => file.startsWith(`callgrind.${name}.out`) && !before.has(file),
    );
    for (const file of files) {
      const text = await readFile(join(dir, file), "utf8");
      const totals = /^totals: (\d+)/m.exec(text) ?? /^summary: (\d+)/m.exec(text);
      if (totals?.[1]) return Number(totals[1]);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no callgrind dump of ${name} in ${dir}: ${(await readdir(dir)).join(", ")}`);
}

/** Instructions of a server from `-z` until now (a dump). */
async function dumpSince(server: Served, name: string, dir: string, label: string): Promise<number> {
  const before = new Set(await readdir(dir));
  control(server.pid, `--dump=${label}`);
  return dumpedTotal(dir, name, before);
}

/** What one route's requests cost: with what the process does by the clock meanwhile, and without. */
interface Count {
  raw: number;
  net: number;
}

/**
 * Instructions per request of each of `requests` against a server under callgrind. Under
 * valgrind a request takes some fifty times as long, so the work a server does by the
 * clock (timers, the change signal's poll, the connections' timeout checks) weighs fifty
 * times as much per request as at full speed: it is measured with no request for
 * IDLE_SECONDS right after, and its rate over the measured run's time is taken off (`net`).
 */
async function count(server: Served, name: string, dir: string, requests: Request[]): Promise<Count[]> {
  const counts: Count[] = [];
  for (const request of requests) {
    const what = `${name} ${request.method ?? "GET"}`;
    progress(`${what}: warm-up`);
    await send(request, WARMUP);
    control(server.pid, "-i", "on");
    progress(`${what}: warm-up, instrumented`);
    await send(request, WARMUP_ON);
    control(server.pid, "-z");
    progress(`${what}: measured requests`);
    const started = performance.now();
    const answered = await send(request, REQUESTS);
    const seconds = (performance.now() - started) / 1000;
    const total = await dumpSince(server, name, dir, `${request.method ?? "GET"}`);
    control(server.pid, "-z");
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idle = (await dumpSince(server, name, dir, "idle")) / IDLE_SECONDS;
    const net = Math.max(0, total - idle * seconds) / answered;
    counts.push({ raw: total / answered, net });
    progress(
      `${what}: ${Math.round(total / answered)} instructions a request, ${Math.round(net)} without ${Math.round(idle)} a second of clock work over ${seconds.toFixed(1)} s`,
    );
    control(server.pid, "-i", "off");
  }
  return counts;
}

function requestsTo(url: string, world: World): Request[] {
  return [
    {
      url: `${url}/v2/`,
      method: "POST",
      headers: {
        authorization: `Bearer ${world.secret}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: `domain=${DOMAIN}`,
    },
    { url: `${url}/?domain=${DOMAIN}`, method: "GET", headers: { "x-gateway-key": world.secret } },
  ];
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  build();
  const world = await openWorld();
  try {
    // The answers, from a service outside valgrind, for the bare route.
    const plain = await serveMailrisk(world);
    const answers = await answersOf(plain.url, world.secret).finally(() => plain.stop());
    progress("mailrisk serve under valgrind: starting");
    const service = await serveMailrisk(world, {
      wrapper: valgrind(world.dir, "mailrisk"),
      args: ["--workers", "1"],
    });
    let mailrisk: Count[];
    try {
      mailrisk = await count(service, "mailrisk", world.dir, requestsTo(service.url, world));
    } finally {
      await service.stop();
    }
    const bare = await serveBare(world, answers, { wrapper: valgrind(world.dir, "bare") });
    let same: Count[];
    try {
      same = await count(bare, "bare", world.dir, requestsTo(bare.url, world));
    } finally {
      await bare.stop();
    }
    const rows: FigureRow[] = ["POST /v2/ (form body)", "GET /?domain="].flatMap((route, at): FigureRow[] => {
      const ours = mailrisk[at] as Count;
      const theirs = same[at] as Count;
      const line = (count: Count) =>
        `${formatCount(Math.round(count.net))} instructions a request (${formatCount(Math.round(count.raw))} with the clock's work)`;
      return [
        [`${route}, mailrisk`, line(ours), "", null],
        [`${route}, bare route`, line(theirs), "", null],
        [
          `${route} × bare (bare ÷ mailrisk)`,
          `${(theirs.net / ours.net).toFixed(2)} (${(theirs.raw / ours.raw).toFixed(2)} with the clock's work)`,
          "≥ 1.0",
          theirs.net / ours.net >= 1,
        ],
      ];
    });
    finish({
      title: `mailrisk instructions per cached request — callgrind, ${formatCount(REQUESTS)} requests at ${CONNECTIONS} connections after ${formatCount(WARMUP + WARMUP_ON)} of warm-up`,
      script: "bench:instructions",
      loadBefore,
      rows,
      knobs: {
        BENCH_REQUESTS: REQUESTS,
        BENCH_WARMUP: WARMUP,
        BENCH_WARMUP_ON: WARMUP_ON,
        BENCH_IDLE_SECONDS: IDLE_SECONDS,
      },
      notes: [
        `\n${describeMachine(loadBefore)}; valgrind ${execFileSync("valgrind", ["--version"]).toString().trim()}; mailrisk serve --workers 1, the bare route in a process of its own, each under callgrind in turn.`,
        "× bare: the bare route's instructions per request ÷ mailrisk's, comparable with bench:http's rate ratio (above 1: mailrisk does less).",
      ],
    });
  } finally {
    await world.close();
  }
}

await main();
