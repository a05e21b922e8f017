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
 * process (the JIT's, the collector's and SQLite's checkpoint thread's included), and
 * of the main thread alone (`--separate-threads=yes`: the event loop's JavaScript). Prints instructions per request of
 * `POST /v2/` (form body) and `GET /`, of the bare route's twins, and their ratio
 * bare ÷ mailrisk, which reads like the rate ratio of `npm run bench:http` ("× bare").
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

type Request = Parameters<typeof autocannon>[0];

function valgrind(dir: string, name: string): string[] {
  return [
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    "--smc-check=all-non-file",
    "--trace-children=no",
    "--separate-threads=yes",
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

/** Instructions of one dump: over every thread, and of the main thread alone (the event loop's JavaScript). */
interface Dumped {
  all: number;
  main: number;
}

/** The instructions of the dump written since `before` (file names): one file per thread (`--separate-threads`). */
async function dumpedTotal(dir: string, name: string, before: Set<string>): Promise<Dumped> {
  for (let tries = 0; tries < 3000; tries++) {
    const files = (await readdir(dir)).filter(
      (file) => file.startsWith(`callgrind.${name}.out`) && !before.has(file),
    );
    const texts = await Promise.all(files.map((file) => readFile(join(dir, file), "utf8")));
    const threads = texts.flatMap((text) => {
      const totals = /^totals: (\d+)/m.exec(text) ?? /^summary: (\d+)/m.exec(text);
      return totals?.[1]
        ? [{ thread: Number(/^thread: (\d+)/m.exec(text)?.[1] ?? 1), total: Number(totals[1]) }]
        : [];
    });
    const main = threads.find((dumped) => dumped.thread === 1);
    // Every thread's file is written once the dump is done: a moment after the main thread's.
    if (main && threads.length === files.length && tries > 0) {
      return { all: threads.reduce((sum, dumped) => sum + dumped.total, 0), main: main.total };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`no callgrind dump of ${name} in ${dir}: ${(await readdir(dir)).join(", ")}`);
}

/** Instructions per request of each of `requests` against a server under callgrind. */
async function count(server: Served, name: string, dir: string, requests: Request[]): Promise<Dumped[]> {
  const perRequest: Dumped[] = [];
  for (const request of requests) {
    const what = `${name} ${request.method ?? "GET"}`;
    progress(`${what}: warm-up`);
    await send(request, WARMUP);
    control(server.pid, "-i", "on");
    progress(`${what}: warm-up, instrumented`);
    await send(request, WARMUP_ON);
    control(server.pid, "-z");
    progress(`${what}: measured requests`);
    const answered = await send(request, REQUESTS);
    const before = new Set(await readdir(dir));
    control(server.pid, `--dump=${request.method ?? "GET"}`);
    const dumped = await dumpedTotal(dir, name, before);
    perRequest.push({ all: dumped.all / answered, main: dumped.main / answered });
    progress(
      `${what}: ${Math.round(dumped.all / answered)} instructions a request (main thread ${Math.round(dumped.main / answered)})`,
    );
    control(server.pid, "-i", "off");
  }
  return perRequest;
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
    let mailrisk: Dumped[];
    try {
      mailrisk = await count(service, "mailrisk", world.dir, requestsTo(service.url, world));
    } finally {
      await service.stop();
    }
    const bare = await serveBare(world, answers, { wrapper: valgrind(world.dir, "bare") });
    let same: Dumped[];
    try {
      same = await count(bare, "bare", world.dir, requestsTo(bare.url, world));
    } finally {
      await bare.stop();
    }
    const rows: FigureRow[] = ["POST /v2/ (form body)", "GET /?domain="].flatMap((route, at): FigureRow[] => {
      const ours = mailrisk[at] as Dumped;
      const theirs = same[at] as Dumped;
      const instructions = (dumped: Dumped) =>
        `${formatCount(Math.round(dumped.all))} instructions a request (main thread ${formatCount(Math.round(dumped.main))})`;
      return [
        [`${route}, mailrisk`, instructions(ours), "", null],
        [`${route}, bare route`, instructions(theirs), "", null],
        [
          `${route} × bare (bare ÷ mailrisk)`,
          (theirs.all / ours.all).toFixed(2),
          "≥ 1.0",
          theirs.all / ours.all >= 1,
        ],
        [`${route} × bare, main threads`, (theirs.main / ours.main).toFixed(2), "", null],
      ];
    });
    finish({
      title: `mailrisk instructions per cached request — callgrind, ${formatCount(REQUESTS)} requests at ${CONNECTIONS} connections after ${formatCount(WARMUP + WARMUP_ON)} of warm-up`,
      script: "bench:instructions",
      loadBefore,
      rows,
      knobs: { BENCH_REQUESTS: REQUESTS, BENCH_WARMUP: WARMUP, BENCH_WARMUP_ON: WARMUP_ON },
      notes: [
        `\n${describeMachine(loadBefore)}; valgrind ${execFileSync("valgrind", ["--version"]).toString().trim()}; mailrisk serve --workers 1, the bare route in a process of its own, each under callgrind in turn.`,
        "× bare: the bare route's instructions per request ÷ mailrisk's, comparable with bench:http's rate ratio (above 1: mailrisk does less). Main thread: the event loop's own (the requests' JavaScript, without the JIT compiler's, the collector's and SQLite's checkpoint threads), the steadier under load.",
      ],
    });
  } finally {
    await world.close();
  }
}

await main();
