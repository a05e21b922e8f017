/**
 * Instructions per cached request (`npm run bench:instructions`): the measure that does
 * not drift with the machine's other tenants. `mailrisk serve` as deployed (bench/served.ts,
 * `--workers 1`: the default on a 2-core machine, where the one worker is the process
 * itself) and the same-work bare route (bench/bare-route.ts), each run under
 * `valgrind --tool=callgrind` with instrumentation off until warmed up
 * (`--instr-atstart=no`; the V8 JIT needs `--smc-check=all-non-file`). For each route:
 * BENCH_WARMUP requests (default 20,000: fewer leave the optimizing compiler still at
 * work on the route's functions, and its threads in the count) uninstrumented (for
 * every route before the first is measured),
 * instrumentation switched on (`callgrind_control -i on`) for BENCH_WARMUP_ON more
 * (default 500), the counters zeroed (`-z`), BENCH_REQUESTS requests (default 3,000) at
 * 50 connections, then a dump (`--dump`) whose total is the instructions of those
 * requests over every thread of the process, and by thread group (callgrind-threads.ts,
 * `--separate-threads=yes`): the main thread, the optimizing compiler's, the collector's
 * helpers, the others. Every route is warmed up before any is measured; after them,
 * BENCH_IDLE_SECONDS (default 20) without requests give the clock's work a second, taken
 * off the main thread's count for the time the requests took (a request lasts some fifty
 * times as long under callgrind, and the clock's work with it). Both servers run with
 * `--no-memory-reducer` (NODE_ARGS). Prints
 * instructions per request of `POST /v2/` (form body) and `GET /`, of the bare route's
 * twins, and their ratio bare ÷ mailrisk on the main thread less the idle clock (a
 * server's rate is bounded by its event loop; the other threads run on the second
 * core), which reads like the rate ratio of `npm run bench:http` ("× bare"); the ratios
 * of the main thread and of every thread beside it. BENCH_CALLGRIND_DIR keeps
 * callgrind's files there.
 */
import "./test-names.js";
import { execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { groupThreads, type ThreadGroups } from "./callgrind-threads.js";
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
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20_000);
/**
 * V8's memory reducer starts full collections when the allocation rate per millisecond
 * looks low, which it does to a process slowed fifty times by callgrind: the servers run
 * without it here (at their real speed, it does not run while requests arrive).
 */
const NODE_ARGS = ["--no-memory-reducer"];
const WARMUP_ON = Number(process.env.BENCH_WARMUP_ON ?? 500);
/** Seconds without requests after the routes, for the clock's work a second. */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
/** Where callgrind writes its files (one per thread and dump), kept after the run for `callgrind_annotate`; by default the world's folder, removed. */
const KEEP = process.env.BENCH_CALLGRIND_DIR;

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

/** The files of the dump written since `before` (file names), thread number → path: one file per thread (`--separate-threads`). */
async function dumpedFiles(dir: string, name: string, before: Set<string>): Promise<Map<number, string>> {
  for (let tries = 0; tries < 3000; tries++) {
    const files = (await readdir(dir)).filter(
      (file) => file.startsWith(`callgrind.${name}.out`) && !before.has(file),
    );
    const threads = new Map<number, string>();
    for (const file of files) {
      const text = await readFile(join(dir, file), "utf8");
      if (/^(totals|summary): \d+/m.test(text))
        threads.set(Number(/^thread: (\d+)/m.exec(text)?.[1] ?? 1), join(dir, file));
    }
    // Every thread's file is written once the dump is done: a moment after the main thread's.
    if (threads.has(1) && threads.size === files.length && tries > 0) return threads;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`no callgrind dump of ${name} in ${dir}: ${(await readdir(dir)).join(", ")}`);
}

const perRequest = (groups: ThreadGroups, requests: number): ThreadGroups => ({
  all: groups.all / requests,
  main: groups.main / requests,
  jit: groups.jit / requests,
  gc: groups.gc / requests,
  other: groups.other / requests,
});

/** Instructions a request (or a second) by thread group, as printed. */
const describeGroups = (groups: ThreadGroups, unit = "a request") =>
  `${formatCount(groups.all)} instructions ${unit} (main thread ${formatCount(groups.main)}, compiler threads ${formatCount(groups.jit)}, collector threads ${formatCount(groups.gc)}, other threads ${formatCount(groups.other)})`;

/** A route's instructions a request, and the main thread's less what the idle server's clock costs in as long. */
interface Counted extends ThreadGroups {
  /** The main thread's instructions a request less the idle window's main thread for the measured requests' duration. */
  mainLessClock: number;
}

/**
 * Instructions per request of each of `requests` against a server under callgrind: every
 * route warmed up first (what the routes share is compiled before any is measured),
 * then each measured; then IDLE_SECONDS without requests, whose main thread's
 * instructions a second (the clock's work: timers, polls, flushes) are taken off each
 * route's main thread for the time its requests took.
 */
async function count(server: Served, name: string, dir: string, requests: Request[]): Promise<Counted[]> {
  const method = (request: Request) => request.method ?? "GET";
  for (const request of requests) {
    progress(`${name} ${method(request)}: warm-up`);
    await send(request, WARMUP);
  }
  control(server.pid, "-i", "on");
  const dump = async (label: string) => {
    const before = new Set(await readdir(dir));
    control(server.pid, `--dump=${label}`);
    return groupThreads(await dumpedFiles(dir, name, before));
  };
  const measured: { groups: ThreadGroups; seconds: number }[] = [];
  for (const request of requests) {
    const what = `${name} ${method(request)}`;
    progress(`${what}: warm-up, instrumented`);
    await send(request, WARMUP_ON);
    control(server.pid, "-z");
    progress(`${what}: measured requests`);
    const started = performance.now();
    const answered = await send(request, REQUESTS);
    const seconds = (performance.now() - started) / 1000;
    const groups = perRequest(await dump(method(request)), answered);
    measured.push({ groups, seconds: seconds / answered });
    progress(`${what}: ${describeGroups(groups)} in ${seconds.toFixed(0)} s`);
  }
  control(server.pid, "-z");
  progress(`${name}: ${IDLE_SECONDS} s idle`);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const idle = perRequest(await dump("idle"), IDLE_SECONDS);
  progress(`${name} idle: ${describeGroups(idle, "a second")}`);
  return measured.map(({ groups, seconds }) => ({
    ...groups,
    mainLessClock: groups.main - idle.main * seconds,
  }));
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
    const dir = KEEP ?? world.dir;
    const service = await serveMailrisk(world, {
      wrapper: valgrind(dir, "mailrisk"),
      nodeArgs: NODE_ARGS,
      args: ["--workers", "1"],
    });
    let mailrisk: Counted[];
    try {
      mailrisk = await count(service, "mailrisk", dir, requestsTo(service.url, world));
    } finally {
      await service.stop();
    }
    const bare = await serveBare(world, answers, {
      wrapper: valgrind(dir, "bare"),
      nodeArgs: NODE_ARGS,
    });
    let same: Counted[];
    try {
      same = await count(bare, "bare", dir, requestsTo(bare.url, world));
    } finally {
      await bare.stop();
    }
    const rows: FigureRow[] = ["POST /v2/ (form body)", "GET /?domain="].flatMap((route, at): FigureRow[] => {
      const ours = mailrisk[at] as Counted;
      const theirs = same[at] as Counted;
      const ratio = theirs.mainLessClock / ours.mainLessClock;
      return [
        [`${route}, mailrisk`, describeGroups(ours), "", null],
        [`${route}, bare route`, describeGroups(theirs), "", null],
        [
          `${route} × bare (bare ÷ mailrisk, main threads less the idle clock)`,
          `${ratio.toFixed(2)} (${formatCount(ours.mainLessClock)} vs ${formatCount(theirs.mainLessClock)})`,
          "≥ 1.0",
          ratio >= 1,
        ],
        [`${route} × bare, main threads`, (theirs.main / ours.main).toFixed(2), "", null],
        [`${route} × bare, every thread`, (theirs.all / ours.all).toFixed(2), "", null],
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
        "× bare: the bare route's instructions per request ÷ mailrisk's on the main thread less the idle clock, comparable with bench:http's rate ratio (above 1: mailrisk does less). Main thread: the event loop's own (the requests' JavaScript, without the optimizing compiler's, the collector's and the other threads): a server's rate is bounded by its one event loop, while the other threads run beside it on the second core. Less the idle clock: less the main thread's instructions a second of the idle window after the routes (timers, polls, flushes, which callgrind's slowness spreads over fewer requests) times the seconds the requests took. Every thread: with the compiler's tail of warm-up and the collector's helpers, which 8 s rounds of bench:http hardly see.",
      ],
    });
  } finally {
    await world.close();
  }
}

await main();
