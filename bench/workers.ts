/**
 * Throughput with `mailrisk serve --workers N` (`npm run bench:workers`): the service as
 * users run it (a child process per configuration; DNS from a loopback server in its own
 * process), `POST /v2/` and `GET /` on a cached domain with authentication and quota counting on, with 1 worker and with one per core (`BENCH_WORKERS`),
 * on SQLite and on PostgreSQL. The load generator runs on the same machine, so with few
 * cores it takes a share of them. Logging at the default level (info: one line per
 * request), as deployed. No target: these are the figures the README quotes.
 */
import "./test-names.js";
import { availableParallelism, loadavg } from "node:os";
import { createTestDatabase, type DatabaseKind } from "../harness/databases.js";
import { startDnsServerProcess } from "../harness/dns-server-process.js";
import { addMailDomain, wholeTreeFixture, type ZoneNames } from "../harness/mail-zones.js";
import { startServiceProcess } from "../harness/service-process.js";
import { openStore } from "../src/store/index.js";
import { measureLoad } from "./load.js";
import { type FigureRow, finish, formatCount } from "./report.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const KINDS = (process.env.BENCH_WORKERS_DATABASES ?? "sqlite,postgres").split(",") as DatabaseKind[];
const MANY = Number(process.env.BENCH_WORKERS ?? availableParallelism());
const DOMAIN = "example.com";

/** A key on a plan without a practical limit (the warm-up's first check caches DOMAIN). */
async function seed(location: Parameters<typeof openStore>[0]): Promise<string> {
  const store = await openStore(location);
  try {
    await store.migrate();
    await store.plans.createPlan({ name: "bench", quota: 2_000_000_000, periodDays: 30 });
    return (await store.keys.createKey({ plan: "bench", now: new Date() })).secret;
  } finally {
    await store.close();
  }
}

async function benchOne(kind: DatabaseKind, workers: number, dnsServer: string): Promise<FigureRow[]> {
  const database = await createTestDatabase(kind);
  try {
    const secret = await seed(database.location);
    const service = await startServiceProcess({
      workers,
      env: { DATABASE_URL: database.url, DNS_SERVERS: dnsServer, AGE_LOOKUP: "off" },
    });
    try {
      const label = `${kind}, ${workers} worker${workers === 1 ? "" : "s"}`;
      const post = await measureLoad(`POST /v2/ cached, ${label}`, SECONDS, {
        url: `${service.url}/v2/`,
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ domain: DOMAIN }),
      });
      const get = await measureLoad(`GET / cached, ${label}`, SECONDS, {
        url: `${service.url}/?domain=${DOMAIN}`,
        headers: { "x-gateway-key": secret },
      });
      return [post, get].map((figure): FigureRow => {
        const failed = figure.failures > 0 ? `, ${formatCount(figure.failures)} failed` : "";
        return [
          figure.name,
          `${formatCount(figure.rps)} req/s, p99 ${figure.p99.toFixed(0)} ms${failed}`,
          "",
          figure.failures === 0 ? null : false,
        ];
      });
    } finally {
      await service.stop();
    }
  } finally {
    await database.drop();
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const counts = [...new Set([1, MANY])];
  const rows: FigureRow[] = [];
  const names: ZoneNames = {};
  addMailDomain(names, DOMAIN, "own-server");
  const dns = await startDnsServerProcess(wholeTreeFixture(names));
  try {
    for (const kind of KINDS) {
      for (const workers of counts) rows.push(...(await benchOne(kind, workers, dns.address)));
    }
  } finally {
    dns.stop();
  }
  finish({
    title: `mailrisk workers benchmark — 50 connections, ${SECONDS} s per route`,
    script: "bench:workers",
    loadBefore,
    rows,
    knobs: { BENCH_SECONDS: SECONDS, BENCH_WORKERS: MANY, BENCH_WORKERS_DATABASES: KINDS.join(",") },
  });
}

await main();
