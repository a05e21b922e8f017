/**
 * The cost of the evidence (`npm run bench:explain`): autocannon with 50 connections
 * against cached `POST /v2/` with `explain: true` and without it, on a domain whose
 * evidence has two items (a listed disposable domain with five sources, and its own mail
 * server), authentication and quota counting on (real store on a temporary SQLite file,
 * real checker answering from its cache). The server runs in a child process so the
 * load generator does not share its event loop.
 *
 * The evidence is made when first asked and kept with the decided answer, so a cached
 * explained answer costs the copy of the record and the serialisation of the items.
 * Target (issue #25): the explained route ≥ 0.7 × the same route without it. As in
 * `bench:http`, the two run side by side BENCH_ROUNDS times (default 3) for
 * BENCH_SECONDS (default 5), the pair's order swapped every round; "× without" is the
 * median of the rounds' ratios.
 */
import { type ChildProcess, fork } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { serveCachedApi } from "./cached-api.js";
import {
  CONNECTIONS,
  type measureLoad,
  measureServerLoad,
  type ServerFigure,
  WARMUP_SECONDS,
} from "./load.js";
import { describeMachine } from "./machine.js";
import { finish, formatCount, median } from "./report.js";

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DOMAIN = "mailinator.com";
const AT_LEAST = 0.7;

interface Served {
  port: number;
  secret: string;
  /** The evidence the explained answer carries, for the report. */
  items: number;
}

/** Child process: the API on a cached domain; reports its port, answers "cpu". */
async function serve(): Promise<void> {
  const api = await serveCachedApi(DOMAIN, true);
  const { url, secret } = api;
  const explained = await fetch(`${url}/v2/`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ domain: DOMAIN, explain: true }),
  }).then((response) => response.json() as Promise<{ evidence?: unknown[] }>);
  const items = explained.evidence?.length ?? 0;
  if (items === 0) throw new Error("the explained answer carries no evidence");

  process.on("message", (message) => {
    if (message === "stop") {
      void (async () => {
        await api.close();
        process.exit(0);
      })();
    }
    if (message === "cpu") process.send?.(process.cpuUsage());
  });
  process.send?.({ port: Number(new URL(url).port), secret, items } satisfies Served);
}

type Figure = ServerFigure;

/** One measured run of a route against the server child. */
function measure(
  child: ChildProcess,
  name: string,
  options: Parameters<typeof measureLoad>[2],
  warmupSeconds: number,
): Promise<Figure> {
  return measureServerLoad(child, name, DURATION_SECONDS, options, warmupSeconds);
}

function row(cells: string[]): string {
  const [name = "", ...rest] = cells;
  return `${name.padEnd(34)}${rest
    .slice(0, 5)
    .map((cell) => cell.padStart(10))
    .join("")}  ${rest.slice(5).join(" ")}`.trimEnd();
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: process.execArgv });
  const served = await new Promise<Served>((resolve, reject) => {
    child.once("message", (message) => resolve(message as Served));
    child.once("exit", (code) => reject(new Error(`server process exited with ${code}`)));
  });
  try {
    const url = `http://127.0.0.1:${served.port}/v2/`;
    const headers = { authorization: `Bearer ${served.secret}`, "content-type": "application/json" };
    const targets = {
      plain: {
        name: "POST /v2/ (cached domain)",
        options: { url, method: "POST" as const, headers, body: JSON.stringify({ domain: DOMAIN }) },
      },
      explained: {
        name: "POST /v2/ explain=true",
        options: {
          url,
          method: "POST" as const,
          headers,
          body: JSON.stringify({ domain: DOMAIN, explain: true }),
        },
      },
    };
    const runs: Record<keyof typeof targets, Figure[]> = { plain: [], explained: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: (keyof typeof targets)[] =
        round % 2 === 0 ? ["plain", "explained"] : ["explained", "plain"];
      for (const key of order) {
        const { name, options } = targets[key];
        runs[key].push(await measure(child, name, options, round === 0 ? WARMUP_SECONDS : 0));
      }
    }
    const ratios = runs.explained.map((run, i) => run.rps / (runs.plain[i]?.rps ?? Number.NaN));
    const ratio = median(ratios);
    const failures = [...runs.plain, ...runs.explained].reduce((sum, run) => sum + run.failures, 0);
    const meets = ratio >= AT_LEAST && failures === 0;
    const summary = (figures: Figure[]) => ({
      rps: median(figures.map((f) => f.rps)),
      p99: Math.max(...figures.map((f) => f.p99)),
      cpu: median(figures.map((f) => f.cpuMicros)),
    });
    const plain = summary(runs.plain);
    const explained = summary(runs.explained);
    const range = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;

    console.log(
      `\nmailrisk explain benchmark — ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_SECONDS} s per route (after ${WARMUP_SECONDS} s warm-up),`,
    );
    console.log(
      `real checker answering ${DOMAIN} from the record cache (${served.items} evidence items), SQLite store, auth + quota counted, logging off`,
    );
    console.log(`${describeMachine(loadBefore)}\n`);
    console.log(row(["route", "req/s", "p99 ms", "server µs", "× without", "", "verdict (rounds)"]));
    console.log(
      row([
        targets.plain.name,
        plain.rps.toFixed(0),
        plain.p99.toFixed(1),
        plain.cpu.toFixed(0),
        "1.00",
        "",
        "baseline",
      ]),
    );
    console.log(
      row([
        targets.explained.name,
        explained.rps.toFixed(0),
        explained.p99.toFixed(1),
        explained.cpu.toFixed(0),
        ratio.toFixed(2),
        "",
        `${meets ? "meets target" : `MISSES ≥ ${AT_LEAST}`} (${range})${failures > 0 ? ` (${failures} failed requests)` : ""}`,
      ]),
    );
    console.log(
      `\nreq/s and server µs: medians of the rounds; p99: the worst round; "× without": the median of each round's ratio to the route without explain, measured beside it (range in brackets). Target: ≥ ${AT_LEAST}`,
    );
    finish({
      title: "mailrisk explain benchmark",
      script: "bench:explain",
      loadBefore,
      rows: [
        [
          targets.plain.name,
          `${formatCount(plain.rps)} req/s, p99 ${plain.p99.toFixed(1)} ms`,
          "baseline",
          null,
        ],
        [
          targets.explained.name,
          `${formatCount(explained.rps)} req/s, p99 ${explained.p99.toFixed(1)} ms (${ratio.toFixed(2)} × without [${range}])`,
          `≥ ${AT_LEAST} × without`,
          meets,
        ],
      ],
      knobs: { BENCH_ROUNDS: ROUNDS, BENCH_SECONDS: DURATION_SECONDS },
      ownTable: true,
    });
  } finally {
    child.send("stop");
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
