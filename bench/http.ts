/**
 * HTTP throughput of the API (`npm run bench:http`): autocannon with 50 connections
 * against bare Fastify routes, then `POST /v2/` and `GET /` on a cached domain with
 * authentication and quota counting on (real store on a temporary SQLite file, real
 * checker answering from its cache). Servers run in a child process so the load
 * generator does not share their event loop.
 *
 * Two baselines. The bare JSON route of the issue answers `GET /` with `{"hello":"world"}`;
 * on a small machine the load generator then needs a core for itself, a route whose
 * answer is a 1.5 KB record costs the load generator more to read, and a POST's body
 * costs Node's HTTP parser and Fastify's body reading about 11 µs more than a GET,
 * whatever the route does. So there are also bare Fastify routes taking the same request
 * (method, URL, headers, body) and giving the same answer (`POST /record` with the same
 * JSON body and the full record; `GET /simple?domain=…` with the same key header and the
 * simple record), and the server's own CPU time per request is read from the child
 * (`process.cpuUsage`) around each measured run: what mailrisk adds to Fastify, apart
 * from what HTTP costs. Targets (issue #14): `POST /v2/` ≥ 0.7 × and `GET /` ≥ 0.8 × the
 * bare route of the same request and answer, p99 ≤ 10 ms; the ratios to hello-world are
 * printed beside them.
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import { sampleRecord, sampleVerdict } from "../harness/sample-record.js";
import { loadConfig } from "../src/config.js";
import { type CheckRecord, formatTimestamp, toSimpleRecord } from "../src/core/record.js";
import { buildApp } from "../src/http/app.js";
import { createChecker } from "../src/service/create-checker.js";
import { openStore } from "../src/store/index.js";
import { CONNECTIONS, type LoadFigure, measureLoad, WARMUP_SECONDS } from "./load.js";
import { describeMachine } from "./machine.js";
import { type FigureRow, formatCount, printFiguresLine } from "./report.js";

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const DOMAIN = "example.com";
const P99_LIMIT_MS = 10;

interface Ports {
  bare: number;
  api: number;
  secret: string;
}

function cachedRecord(now: Date): CheckRecord {
  return sampleRecord({ domain: DOMAIN, base_domain: DOMAIN, block_status_changed_at: formatTimestamp(now) });
}

/** Child process: the bare routes and the API, each app on its own port; reports the ports, answers "cpu". */
async function serve(): Promise<void> {
  const bare = Fastify();
  const record = cachedRecord(new Date());
  const simple = toSimpleRecord(record);
  bare.get("/", async () => ({ hello: "world" }));
  bare.post("/record", async () => record);
  bare.get("/simple", async () => simple);
  const bareUrl = await bare.listen({ host: "127.0.0.1", port: 0 });

  const dir = await mkdtemp(join(tmpdir(), "mailrisk-bench-"));
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
    DNS_SERVERS: "127.0.0.1:9",
  });
  const store = await openStore(config.database);
  await store.migrate();
  await store.plans.createPlan({ name: "bench", quota: 1_000_000_000, periodDays: 30 });
  const { secret } = await store.keys.createKey({ plan: "bench", now: new Date() });
  await store.records.saveRecord(
    cachedRecord(new Date()),
    sampleVerdict(cachedRecord(new Date())),
    new Date(),
  );
  const checker = createChecker({ config, store });
  const app = await buildApp({ store, checker, logger: false });
  const apiUrl = await app.listen({ host: "127.0.0.1", port: 0 });

  const shutdown = async () => {
    await Promise.all([bare.close(), app.close()]);
    await store.close();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("message", (message) => {
    if (message === "stop") void shutdown();
    if (message === "cpu") process.send?.(process.cpuUsage());
  });
  const ports: Ports = {
    bare: Number(new URL(bareUrl).port),
    api: Number(new URL(apiUrl).port),
    secret,
  };
  process.send?.(ports);
}

interface Figure extends LoadFigure {
  /** The server process's CPU time (user + system) per request answered in the measured run, µs. */
  cpuMicros: number;
}

/** The server process's CPU time so far, µs. */
function serverCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once("message", (usage) => {
      const { user, system } = usage as NodeJS.CpuUsage;
      resolve(user + system);
    });
    child.send("cpu");
  });
}

async function measure(
  child: ChildProcess,
  name: string,
  options: Parameters<typeof measureLoad>[2],
): Promise<Figure> {
  let before = 0;
  const figure = await measureLoad(name, DURATION_SECONDS, options, async () => {
    before = await serverCpu(child);
  });
  const cpuMicros = (await serverCpu(child)) - before;
  return { ...figure, cpuMicros: cpuMicros / Math.max(1, figure.requests) };
}

/** An API route, the bare route taking the same request and giving the same answer, and its target. */
interface Comparison {
  route: Figure;
  same: Figure;
  atLeast: number;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: process.execArgv });
  const ports = await new Promise<Ports>((resolve, reject) => {
    child.once("message", (message) => resolve(message as Ports));
    child.once("exit", (code) => reject(new Error(`server process exited with ${code}`)));
  });
  try {
    const bareUrl = `http://127.0.0.1:${ports.bare}`;
    const api = `http://127.0.0.1:${ports.api}`;
    const hello = await measure(child, "bare route, {hello: world}", { url: `${bareUrl}/` });
    const postRequest = {
      method: "POST" as const,
      headers: { authorization: `Bearer ${ports.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ domain: DOMAIN }),
    };
    const getHeaders = { "x-gateway-key": ports.secret };
    const barePost = await measure(child, "bare POST, full record", {
      url: `${bareUrl}/record`,
      ...postRequest,
    });
    const post = await measure(child, "POST /v2/ (cached domain)", { url: `${api}/v2/`, ...postRequest });
    const bareGet = await measure(child, "bare GET, simple record", {
      url: `${bareUrl}/simple?domain=${DOMAIN}`,
      headers: getHeaders,
    });
    const get = await measure(child, "GET / (cached domain)", {
      url: `${api}/?domain=${DOMAIN}`,
      headers: getHeaders,
    });
    report(
      hello,
      [
        { route: post, same: barePost, atLeast: 0.7 },
        { route: get, same: bareGet, atLeast: 0.8 },
      ],
      loadBefore,
    );
  } finally {
    child.send("stop");
  }
}

function row(cells: string[]): string {
  const [name = "", ...rest] = cells;
  return `${name.padEnd(28)}${rest
    .slice(0, 6)
    .map((cell) => cell.padStart(10))
    .join("")}  ${rest.slice(6).join(" ")}`.trimEnd();
}

function meets({ route, same, atLeast }: Comparison): boolean {
  return route.rps / same.rps >= atLeast && route.p99 <= P99_LIMIT_MS && route.failures === 0;
}

function report(hello: Figure, comparisons: Comparison[], loadBefore: number): void {
  console.log(
    `\nmailrisk HTTP benchmark — ${CONNECTIONS} connections, ${DURATION_SECONDS} s per route (after ${WARMUP_SECONDS} s warm-up),`,
  );
  console.log(
    "real checker answering from the record cache, SQLite store, auth + quota counted, logging off",
  );
  console.log(
    `${describeMachine(loadBefore)}; reproduce: npm run bench:http (BENCH_SECONDS=${DURATION_SECONDS})\n`,
  );
  console.log(row(["route", "req/s", "p50 ms", "p99 ms", "server µs", "× hello", "× same", "verdict"]));
  const line = (figure: Figure, same: string, verdict: string) =>
    console.log(
      row([
        figure.name,
        figure.rps.toFixed(0),
        figure.p50.toFixed(1),
        figure.p99.toFixed(1),
        figure.cpuMicros.toFixed(0),
        (figure.rps / hello.rps).toFixed(2),
        same,
        verdict,
        figure.failures > 0 ? `(${figure.failures} failed requests)` : "",
      ]),
    );
  line(hello, "", "baseline");
  for (const comparison of comparisons) {
    const { route, same, atLeast } = comparison;
    line(same, "1.00", "baseline");
    line(
      route,
      (route.rps / same.rps).toFixed(2),
      meets(comparison) ? "meets target" : `MISSES ≥ ${atLeast}`,
    );
  }
  console.log(
    `\ntargets: POST /v2/ ≥ 0.7 ×, GET / ≥ 0.8 × the bare route taking the same request with the same answer ("× same"), p99 ≤ ${P99_LIMIT_MS} ms; "server µs": the server's CPU per request`,
  );
  const figures = (figure: Figure) =>
    `${formatCount(figure.rps)} req/s, p99 ${figure.p99.toFixed(1)} ms, ${figure.cpuMicros.toFixed(0)} µs CPU`;
  printFiguresLine("mailrisk HTTP benchmark", "bench:http", [
    [hello.name, figures(hello), "baseline", null],
    ...comparisons.flatMap((comparison): FigureRow[] => {
      const { route, same, atLeast } = comparison;
      return [
        [same.name, figures(same), "baseline", null],
        [
          route.name,
          `${figures(route)} (${(route.rps / same.rps).toFixed(2)} × same request, ${(route.rps / hello.rps).toFixed(2)} × hello)`,
          `≥ ${atLeast} × same request, p99 ≤ ${P99_LIMIT_MS} ms`,
          meets(comparison),
        ],
      ];
    }),
  ]);
  process.exitCode = comparisons.every(meets) ? 0 : 1;
}

if (process.argv.includes("--serve")) await serve();
else await main();
