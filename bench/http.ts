/**
 * HTTP throughput of the API (`npm run bench:http`): autocannon with 50 connections
 * against a bare Fastify JSON route, then `POST /v2/` and `GET /` on a cached domain
 * with authentication and quota counting on (real store on a temporary SQLite file,
 * real checker answering from its cache). Servers run in a child process so the load
 * generator does not share their event loop. Targets: each route ≥ 0.5 × the bare
 * route's requests/s, p99 ≤ 20 ms.
 */
import { fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import { sampleRecord, sampleVerdict } from "../harness/sample-record.js";
import { loadConfig } from "../src/config.js";
import { type CheckRecord, formatTimestamp } from "../src/core/record.js";
import { buildApp } from "../src/http/app.js";
import { createChecker } from "../src/service/create-checker.js";
import { openStore } from "../src/store/index.js";
import { CONNECTIONS, type LoadFigure, measureLoad, WARMUP_SECONDS } from "./load.js";
import { describeMachine } from "./machine.js";
import { type FigureRow, formatCount, printFiguresLine } from "./report.js";

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const DOMAIN = "example.com";

interface Ports {
  bare: number;
  api: number;
  secret: string;
}

function cachedRecord(now: Date): CheckRecord {
  return sampleRecord({ domain: DOMAIN, base_domain: DOMAIN, block_status_changed_at: formatTimestamp(now) });
}

/** Child process: the bare route and the API, each on its own port; reports the ports. */
async function serve(): Promise<void> {
  const bare = Fastify();
  bare.get("/", async () => ({ hello: "world" }));
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
  });
  const ports: Ports = {
    bare: Number(new URL(bareUrl).port),
    api: Number(new URL(apiUrl).port),
    secret,
  };
  process.send?.(ports);
}

type Figure = LoadFigure;

const measure = (name: string, options: Parameters<typeof measureLoad>[2]) =>
  measureLoad(name, DURATION_SECONDS, options);

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: process.execArgv });
  const ports = await new Promise<Ports>((resolve, reject) => {
    child.once("message", (message) => resolve(message as Ports));
    child.once("exit", (code) => reject(new Error(`server process exited with ${code}`)));
  });
  try {
    const api = `http://127.0.0.1:${ports.api}`;
    const figures = [
      await measure("bare Fastify JSON route", { url: `http://127.0.0.1:${ports.bare}/` }),
      await measure("POST /v2/ (cached domain)", {
        url: `${api}/v2/`,
        method: "POST",
        headers: { authorization: `Bearer ${ports.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ domain: DOMAIN }),
      }),
      await measure("GET / (cached domain)", {
        url: `${api}/?domain=${DOMAIN}`,
        headers: { "x-gateway-key": ports.secret },
      }),
    ];
    report(figures, loadBefore);
  } finally {
    child.send("stop");
  }
}

function row(cells: string[]): string {
  const [name = "", ...rest] = cells;
  return `${name.padEnd(28)}${rest
    .slice(0, 4)
    .map((cell) => cell.padStart(9))
    .join("")}  ${rest.slice(4).join(" ")}`.trimEnd();
}

function report(figures: Figure[], loadBefore: number): void {
  const bare = figures[0]?.rps ?? 1;
  console.log(
    `\nmailrisk HTTP benchmark — ${CONNECTIONS} connections, ${DURATION_SECONDS} s per route (after ${WARMUP_SECONDS} s warm-up),`,
  );
  console.log(
    "real checker answering from the record cache, SQLite store, auth + quota counted, logging off",
  );
  console.log(
    `${describeMachine(loadBefore)}; reproduce: npm run bench:http (BENCH_SECONDS=${DURATION_SECONDS})\n`,
  );
  console.log(row(["route", "req/s", "p50 ms", "p99 ms", "× bare", "verdict"]));
  let ok = true;
  for (const [index, figure] of figures.entries()) {
    const ratio = figure.rps / bare;
    const meets = ratio >= 0.5 && figure.p99 <= 20 && figure.failures === 0;
    if (index > 0) ok &&= meets;
    const verdict = index === 0 ? "baseline" : meets ? "meets target" : "MISSES target";
    const failures = figure.failures > 0 ? `(${figure.failures} failed requests)` : "";
    console.log(
      row([
        figure.name,
        figure.rps.toFixed(0),
        figure.p50.toFixed(1),
        figure.p99.toFixed(1),
        ratio.toFixed(2),
        verdict,
        failures,
      ]),
    );
  }
  console.log("\ntargets: ≥ 0.50 × bare req/s and p99 ≤ 20 ms for each API route");
  printFiguresLine(
    "mailrisk HTTP benchmark",
    "bench:http",
    figures.map((figure, index): FigureRow => {
      const ratio = figure.rps / bare;
      const measured = `${formatCount(figure.rps)} req/s, p99 ${figure.p99.toFixed(1)} ms`;
      if (index === 0) return [figure.name, measured, "baseline", null];
      const meets = ratio >= 0.5 && figure.p99 <= 20 && figure.failures === 0;
      return [figure.name, `${measured} (${ratio.toFixed(2)} × bare)`, "≥ 0.50 × bare, p99 ≤ 20 ms", meets];
    }),
  );
  process.exitCode = ok ? 0 : 1;
}

if (process.argv.includes("--serve")) await serve();
else await main();
