/**
 * Bulk memory (`npm run bench:bulk-memory`): the peak resident memory of a real service
 * process (`mailrisk serve --workers 1`, SQLite file) while one key fires
 * `BENCH_BULK_REQUESTS` (300) parallel `POST /v2/bulk` requests of 1,000 new items each,
 * every item a distinct working domain of a generated world served by the loopback DNS
 * server in a child process (domain age off). The bulk gate (BULK_CONCURRENT_PER_KEY,
 * BULK_CONCURRENT_TOTAL; the defaults unless the environment sets them) admits a few and
 * refuses the rest at once; the figure is the process's VmHWM from /proc, which holds
 * its start-up too. Target: under 600 MB (docs/deploy.md plans for about 500 MB).
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createKeyIn, createTestDatabase } from "../harness/databases.js";
import { startDnsServerProcess } from "../harness/dns-server-process.js";
import { startServiceProcess } from "../harness/service-process.js";
import { trafficWorld } from "../harness/traffic-world.js";
import { count, finish, formatCount } from "./report.js";

const REQUESTS = Number(process.env.BENCH_BULK_REQUESTS ?? 300);
const ITEMS = 1_000;
/** Distinct domains of the world; request r checks slice r mod (WORLD / ITEMS), new for every admitted one. */
const WORLD = 20_000;
const TARGET_BYTES = 600 * 1024 * 1024;

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM). */
function statusBytes(pid: number, field: "VmRSS" | "VmHWM"): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((entry) => entry.startsWith(`${field}:`));
  return Number(/(\d+)\s*kB/.exec(line ?? "")?.[1] ?? Number.NaN) * 1024;
}

function megabytes(bytes: number): string {
  return `${formatCount(bytes / 1024 / 1024)} MB`;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const { domains, fixture } = trafficWorld({ domains: WORLD });
  const dns = await startDnsServerProcess(fixture);
  const database = await createTestDatabase("sqlite");
  const gate = Object.fromEntries(
    ["BULK_CONCURRENT_PER_KEY", "BULK_CONCURRENT_TOTAL"].flatMap((name) =>
      process.env[name] ? [[name, process.env[name] as string]] : [],
    ),
  );
  const service = await startServiceProcess({
    workers: 1,
    env: {
      DATABASE_URL: database.url,
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: "2000",
      AGE_LOOKUP: "off",
      // Every connection of the burst reaches the server: the gate is what is measured.
      MAX_CONNECTIONS_PER_CLIENT: String(REQUESTS + 16),
      ...gate,
    },
  });
  try {
    const pid = service.listeningPids()[0] as number;
    const secret = await createKeyIn(database.location, "bulk-memory", 1_000_000_000);
    const before = statusBytes(pid, "VmRSS");
    const slices = WORLD / ITEMS;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, r) => {
        const start = (r % slices) * ITEMS;
        const response = await fetch(`${service.url}/v2/bulk`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify({ items: domains.slice(start, start + ITEMS) }),
        });
        const body = (await response.json()) as { results?: unknown[] };
        if (response.status === 200 && body.results?.length !== ITEMS) throw new Error("a short answer");
        return response.status;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const peak = statusBytes(pid, "VmHWM");
    const statuses = count(answers, String);
    const admitted = statuses.get("200") ?? 0;
    finish({
      title: "mailrisk bulk memory",
      script: "bench:bulk-memory",
      loadBefore,
      rows: [
        [`peak RSS, ${REQUESTS} parallel bulk requests`, megabytes(peak), "< 600 MB", peak < TARGET_BYTES],
        ["RSS before the burst", megabytes(before), "", null],
        [
          "answered 200 / 429 / 503",
          `${admitted} / ${statuses.get("429") ?? 0} / ${statuses.get("503") ?? 0}`,
          "",
          null,
        ],
        ["whole burst", `${seconds.toFixed(1)} s`, "", null],
      ],
      knobs: { BENCH_BULK_REQUESTS: REQUESTS, ...gate },
      notes: [
        `\n${REQUESTS} parallel POST /v2/bulk of ${formatCount(ITEMS)} new items each from one key, to \`mailrisk serve --workers 1\`` +
          ` on a SQLite file; ${formatCount(admitted * ITEMS)} items checked over the loopback DNS server (child process); domain age off.` +
          ` Gate: ${Object.keys(gate).length > 0 ? JSON.stringify(gate) : "the defaults (2 per key, 8 in all)"}.`,
      ],
    });
    if (answers.some((status) => ![200, 429, 503].includes(status))) throw new Error("an unexpected status");
  } finally {
    await service.stop();
    dns.stop();
    await database.drop();
  }
}

await main();
