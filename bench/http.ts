/**
 * HTTP throughput of the cached checking routes (`npm run bench:http`): `mailrisk serve`
 * as deployed (built from the sources first, spawned from `dist/`, its defaults: workers,
 * LOG_LEVEL, ACCESS_LOG, its log written to a file) against the same-work bare route
 * (bench/bare-route.ts: a bare Fastify app that takes the same request, form body parsed,
 * query read, key header present, and sends the same answer bytes, with no key, quota or
 * checking), each server in a process of its own and autocannon in this one, 50
 * connections. DNS comes from a loopback server in a fourth process (only the first
 * request of the cached domain asks it).
 *
 * `POST /v2/` (key in `Authorization: Bearer`, form body `domain=example.com`) and
 * `GET /?domain=example.com` (key in `X-Gateway-Key`), each against its bare twin in
 * BENCH_ROUNDS (default 3) rounds of BENCH_SECONDS (default 8), the pair's order swapped
 * every round, after one warm-up of each. A shared machine's rate swings between hours,
 * so what is judged is each round's ratio (median over the rounds) and each round's p99
 * against the bare route's p99 in the same round; the servers' CPU time per request is
 * read from /proc around each run. Targets: ≥ 1.0 × the bare route, p99 ≤ 2 × its p99.
 */
import "./test-names.js";
import { loadavg } from "node:os";
import { CONNECTIONS, type LoadFigure, measureLoad } from "./load.js";
import { describeMachine } from "./machine.js";
import { type FigureRow, finish, median } from "./report.js";
import {
  answersOf,
  build,
  cpuMicros,
  DOMAIN,
  openWorld,
  type Served,
  serveBare,
  serveMailrisk,
} from "./served.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = 2;
const AT_LEAST = 1.0;
const P99_TIMES = 2;

interface Run extends LoadFigure {
  /** The server's CPU time (user + system) per answered request, µs. */
  cpuMicros: number;
}

type Request = Parameters<typeof measureLoad>[2];

async function run(name: string, server: Served, request: Request, warmup: number): Promise<Run> {
  let before = 0;
  const figure = await measureLoad(
    name,
    SECONDS,
    request,
    async () => {
      before = await cpuMicros(server.pid);
    },
    warmup,
  );
  const used = (await cpuMicros(server.pid)) - before;
  return { ...figure, cpuMicros: used / Math.max(1, figure.requests) };
}

interface Pair {
  name: string;
  mailrisk: Run[];
  bare: Run[];
}

function summarize(pair: Pair): { rate: number[]; p99: number[] } {
  return {
    rate: pair.mailrisk.map((run, i) => run.rps / (pair.bare[i]?.rps ?? Number.NaN)),
    p99: pair.mailrisk.map((run, i) => run.p99 / Math.max(1, pair.bare[i]?.p99 ?? Number.NaN)),
  };
}

const range = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  build();
  const world = await openWorld();
  const servers: Served[] = [];
  try {
    const service = await serveMailrisk(world);
    servers.push(service);
    const answers = await answersOf(service.url, world.secret);
    const bare = await serveBare(world, answers);
    servers.push(bare);
    const post = (url: string): Request => ({
      url: `${url}/v2/`,
      method: "POST",
      headers: {
        authorization: `Bearer ${world.secret}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: `domain=${DOMAIN}`,
    });
    const get = (url: string): Request => ({
      url: `${url}/?domain=${DOMAIN}`,
      headers: { "x-gateway-key": world.secret },
    });
    // The bare route answers mailrisk's bytes, or the comparison means nothing.
    for (const [request, expected] of [
      [post(bare.url), answers.full],
      [get(bare.url), answers.simple],
    ] as const) {
      const answer = await fetch(request.url as string, request as RequestInit).then((r) => r.text());
      if (answer !== expected) throw new Error(`the bare route answers ${answer}, not ${expected}`);
    }
    const pairs: Pair[] = [
      { name: "POST /v2/ (form body)", mailrisk: [], bare: [] },
      { name: "GET /?domain=", mailrisk: [], bare: [] },
    ];
    const requests = [post, get];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [at, pair] of pairs.entries()) {
        const request = requests[at] as (url: string) => Request;
        const sides = [
          async () =>
            pair.mailrisk.push(
              await run(
                `${pair.name}, mailrisk`,
                service,
                request(service.url),
                round === 0 ? WARMUP_SECONDS : 0,
              ),
            ),
          async () =>
            pair.bare.push(
              await run(`${pair.name}, bare`, bare, request(bare.url), round === 0 ? WARMUP_SECONDS : 0),
            ),
        ];
        if ((round + at) % 2 === 1) sides.reverse();
        for (const side of sides) await side();
      }
    }
    report(pairs, loadBefore);
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await world.close();
  }
}

function report(pairs: Pair[], loadBefore: number): void {
  console.log(
    `\nmailrisk serve against the same-work bare route — ${CONNECTIONS} connections, ${ROUNDS} alternated rounds of ${SECONDS} s, each server in its own process`,
  );
  console.log(`${describeMachine(loadBefore)}\n`);
  const cell = (value: string, width: number) => value.padStart(width);
  console.log(
    `${"round".padEnd(30)}${cell("mailrisk/s", 12)}${cell("bare/s", 10)}${cell("×", 7)}${cell("p99", 7)}${cell("bare p99", 10)}${cell("µs CPU", 9)}${cell("bare µs", 9)}`,
  );
  const rows: FigureRow[] = [];
  for (const pair of pairs) {
    pair.mailrisk.forEach((run, i) => {
      const other = pair.bare[i] as Run;
      console.log(
        `${`${pair.name} #${i + 1}`.padEnd(30)}${cell(run.rps.toFixed(0), 12)}${cell(other.rps.toFixed(0), 10)}${cell((run.rps / other.rps).toFixed(2), 7)}${cell(`${run.p99}`, 7)}${cell(`${other.p99}`, 10)}${cell(run.cpuMicros.toFixed(1), 9)}${cell(other.cpuMicros.toFixed(1), 9)}`,
      );
    });
    const { rate, p99 } = summarize(pair);
    const failures = [...pair.mailrisk, ...pair.bare].reduce((sum, run) => sum + run.failures, 0);
    const cpu = median(pair.mailrisk.map((r) => r.cpuMicros));
    const bareCpu = median(pair.bare.map((r) => r.cpuMicros));
    rows.push([
      `${pair.name} × bare`,
      `${median(rate).toFixed(2)} (${range(rate)}); CPU ${cpu.toFixed(1)} vs ${bareCpu.toFixed(1)} µs a request${failures ? `; ${failures} failed` : ""}`,
      `≥ ${AT_LEAST.toFixed(1)}`,
      median(rate) >= AT_LEAST && failures === 0,
    ]);
    rows.push([
      `${pair.name} p99 × bare p99`,
      `${median(p99).toFixed(2)} (${range(p99)}); worst ${Math.max(...pair.mailrisk.map((r) => r.p99))} ms`,
      `≤ ${P99_TIMES}`,
      Math.max(...p99) <= P99_TIMES,
    ]);
  }
  finish({
    title: "mailrisk HTTP benchmark",
    script: "bench:http",
    loadBefore,
    rows,
    knobs: { BENCH_ROUNDS: ROUNDS, BENCH_SECONDS: SECONDS },
    notes: [
      "\n×: each round's mailrisk req/s ÷ the bare route's, measured back to back (median of the rounds, range in brackets); p99 likewise against the bare route's p99 in the same round; CPU: the server process's user + system time per answered request (median of the rounds).",
    ],
  });
}

await main();
