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

/** Instructions per request of each of `requests` against a server under callgrind. */
async function count(server: Served, name: string, dir: string, requests: Request[]): Promise<number[]> {
  const perRequest: number[] = [];
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
    perRequest.push((await dumpedTotal(dir, name, before)) / answered);
    progress(`${what}: ${Math.round(perRequest.at(-1) ?? 0)} instructions a request`);
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
    let mailrisk: number[];
    try {
      mailrisk = await count(service, "mailrisk", world.dir, requestsTo(service.url, world));
    } finally {
      await service.stop();
    }
    const bare = await serveBare(world, answers, { wrapper: valgrind(world.dir, "bare") });
    let same: number[];
    try {
      same = await count(bare, "bare", world.dir, requestsTo(bare.url, world));
    } finally {
      await bare.stop();
    }
    const rows: FigureRow[] = ["POST /v2/ (form body)", "GET /?domain="].flatMap((route, at): FigureRow[] => {
      const ours = mailrisk[at] as number;
      const theirs = same[at] as number;
      return [
        [`${route}, mailrisk`, `${formatCount(Math.round(ours))} instructions a request`, "", null],
        [`${route}, bare route`, `${formatCount(Math.round(theirs))} instructions a request`, "", null],
        [`${route} × bare (bare ÷ mailrisk)`, (theirs / ours).toFixed(2), "≥ 1.0", theirs / ours >= 1],
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
        "× bare: the bare route's instructions per request ÷ mailrisk's, comparable with bench:http's rate ratio (above 1: mailrisk does less).",
      ],
    });
  } finally {
    await world.close();
  }
}

await main();
