/**
 * Cleaning a list (`npm run bench:bulk`): rows/s of `mailrisk check --csv` and items/s
 * of `POST /v2/bulk`, each cold (an empty database: every domain looked up over DNS)
 * and warm (the same list again: every record fresh in the database). DNS is the
 * loopback authoritative test server in a child process (harness/dns-server-process.ts)
 * serving a generated world of distinct working domains (harness/traffic-world.ts);
 * domain age is off (a registry look-up of its own; bench:wire leaves it out too) and
 * the registries point at loopback servers, so nothing leaves the machine.
 *
 * The CSV path runs the CLI's `run()` in this process on a CSV of `BENCH_ROWS` addresses
 * (quoted names with commas, CRLF), output to a counting sink, `--concurrency 64`. The
 * bulk route is the real app on a SQLite file in a child process, fed requests of 1,000
 * items by 4 clients at once, each item a distinct domain.
 */
import { configWith } from "../harness/config.js";
import "./test-names.js";
import { fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { startDnsServerProcess } from "../harness/dns-server-process.js";
import { startRdapServer, startWhoisServer, writeBootstrap } from "../harness/loopback-registries.js";
import { trafficWorld } from "../harness/traffic-world.js";
import { buildApp } from "../src/app.js";
import { run as check } from "../src/cli/check-command.js";
import { loadConfig } from "../src/config.js";
import { createChecker } from "../src/service/checking/create-checker.js";
import { openStore } from "../src/store/index.js";
import { finish, formatCount } from "./report.js";

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 20_000);
const BATCH = 1_000;
const CLIENTS = 4;
const CONCURRENCY = 64;

/** The environment both runs share: loopback DNS and registries, age off. */
interface World {
  env: Record<string, string>;
  domains: string[];
}

function csvOf(domains: readonly string[]): string {
  const lines = ["id,name,email"];
  domains.forEach((domain, i) => {
    lines.push(`${i},"Person ${i}, ""the ${i % 7}th""",user${i}@${domain}`);
  });
  return `${lines.join("\r\n")}\r\n`;
}

/** One `check --csv` run over `csv` on the database at `url`; rows/s. */
async function csvRun(world: World, url: string, csv: string, rows: number): Promise<number> {
  const config = loadConfig({ ...world.env, DATABASE_URL: url });
  let bytes = 0;
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done();
    },
  });
  const stderr = new Writable({ write: (_chunk, _encoding, done) => done() });
  const started = performance.now();
  const code = await check(["--csv", "--concurrency", String(CONCURRENCY)], {
    config,
    stdin: Readable.from([csv]),
    stdout,
    stderr,
    clock: () => new Date(),
    openStore: () => openStore(config.database),
  });
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0 || bytes < csv.length) throw new Error(`check --csv exited ${code} after ${bytes} bytes`);
  return rows / seconds;
}

interface Served {
  port: number;
  secret: string;
}

/** Child process: the app on a fresh SQLite file with the real checker; reports port and key. */
async function serve(): Promise<void> {
  const world = await new Promise<World>((resolve) => process.once("message", (m) => resolve(m as World)));
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-bench-bulk-"));
  const config = loadConfig({ ...world.env, DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}` });
  const store = await openStore(config.database);
  await store.migrate();
  await store.plans.createPlan({ name: "bench", quota: 1_000_000_000, periodDays: 30 });
  const { secret } = await store.keys.createKey({ plan: "bench", now: new Date() });
  const checker = createChecker({ config, store, recordsFlips: true });
  // Its CLIENTS requests of one key at once are admitted (BULK_CONCURRENT_PER_KEY's default is 2).
  const app = await buildApp({
    store,
    checker,
    logger: false,
    config: configWith({ bulkConcurrentPerKey: CLIENTS, bulkConcurrentTotal: CLIENTS }),
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  process.on("message", async (message) => {
    if (message !== "stop") return;
    await app.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send?.({ port: Number(new URL(url).port), secret } satisfies Served);
}

/** Sends every domain once in requests of BATCH items, CLIENTS at a time; items/s. */
async function bulkRun(served: Served, domains: readonly string[]): Promise<number> {
  const batches: string[][] = [];
  for (let i = 0; i < domains.length; i += BATCH) batches.push(domains.slice(i, i + BATCH));
  let next = 0;
  const client = async () => {
    while (next < batches.length) {
      const items = batches[next++] as string[];
      const response = await fetch(`http://127.0.0.1:${served.port}/v2/bulk`, {
        method: "POST",
        headers: { authorization: `Bearer ${served.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ items }),
      });
      const body = (await response.json()) as { results?: unknown[] };
      if (response.status !== 200 || body.results?.length !== items.length) {
        throw new Error(`bulk request answered ${response.status}`);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return domains.length / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const { domains, fixture } = trafficWorld({ domains: ROWS + ITEMS });
  const dns = await startDnsServerProcess(fixture);
  const rdap = await startRdapServer(() => ({ status: 404 }));
  const whois = await startWhoisServer(() => "No match\r\n");
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-bench-csv-"));
  const world: World = {
    env: {
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: "2000",
      AGE_LOOKUP: "off",
      RDAP_BOOTSTRAP_FILE: await writeBootstrap({ com: rdap.baseUrl, net: rdap.baseUrl }),
      WHOIS_SERVER: whois.address,
      LOG_LEVEL: "silent",
    },
    domains,
  };
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: process.execArgv });
  try {
    const csvDomains = domains.slice(0, ROWS);
    const csv = csvOf(csvDomains);
    const url = `sqlite:${join(dir, "mailrisk.db")}`;
    const csvCold = await csvRun(world, url, csv, ROWS);
    const csvWarm = await csvRun(world, url, csv, ROWS);

    child.send(world);
    const served = await new Promise<Served>((resolve, reject) => {
      child.once("message", (message) => resolve(message as Served));
      child.once("exit", (code) => reject(new Error(`server process exited with ${code}`)));
    });
    const bulkDomains = domains.slice(ROWS, ROWS + ITEMS);
    const bulkCold = await bulkRun(served, bulkDomains);
    const bulkWarm = await bulkRun(served, bulkDomains);

    finish({
      title: "mailrisk list-cleaning benchmark",
      script: "bench:bulk",
      loadBefore,
      rows: [
        ["check --csv, cold (loopback DNS)", `${formatCount(csvCold)} rows/s`, "", null],
        ["check --csv, warm (records in the database)", `${formatCount(csvWarm)} rows/s`, "", null],
        ["POST /v2/bulk, cold (loopback DNS)", `${formatCount(bulkCold)} items/s`, "", null],
        ["POST /v2/bulk, warm (records cached)", `${formatCount(bulkWarm)} items/s`, "", null],
      ],
      knobs: { BENCH_ROWS: ROWS, BENCH_ITEMS: ITEMS },
      notes: [
        `\n${formatCount(ROWS)} CSV rows (--concurrency ${CONCURRENCY}, SQLite file, output to a sink) and ${formatCount(ITEMS)} bulk items` +
          ` (requests of ${formatCount(BATCH)}, ${CLIENTS} clients, server in a child process, SQLite file), each a distinct domain of a` +
          " generated world served by the loopback DNS server in a child process; domain age off.",
      ],
    });
  } finally {
    child.send("stop");
    dns.stop();
    await Promise.all([rdap.close(), whois.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
