/**
 * Bulk memory (`npm run bench:bulk-memory`): the peak resident memory of a real service
 * process (`mailrisk serve --workers 1`, SQLite file) while `BENCH_BULK_REQUESTS` (300)
 * parallel `POST /v2/bulk` requests of 1,000 new items each arrive at once, every item a
 * distinct working domain of a generated world served by the loopback DNS server in a
 * child process (domain age off). `BENCH_BULK_KEYS` names the shapes, each in a service
 * process of its own, one after the other: the requests spread over that many keys
 * (default `1,300`: one key, where the per-key limit binds, and one key per request,
 * where the instance's does). The bulk gate (BULK_CONCURRENT_PER_KEY,
 * BULK_CONCURRENT_TOTAL; the defaults unless the environment sets them) admits a few and
 * refuses the rest before their bodies are read; each figure is the process's VmHWM from
 * /proc, which holds its start-up too. Target: under 600 MB for each shape
 * (docs/deploy.md plans for about 500 MB).
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createKeysIn, createTestDatabase } from "../harness/databases.js";
import { startDnsServerProcess } from "../harness/dns-server-process.js";
import { startServiceProcess } from "../harness/service-process.js";
import { trafficWorld } from "../harness/traffic-world.js";
import { count, type FigureRow, finish, formatCount } from "./report.js";

const REQUESTS = Number(process.env.BENCH_BULK_REQUESTS ?? 300);
/** The shapes: how many keys the requests spread over, each shape in its own service process. */
const KEYS_KNOB = process.env.BENCH_BULK_KEYS ?? `1,${REQUESTS}`;
const SHAPES = KEYS_KNOB.split(",").map((value) => {
  const keys = Number(value.trim());
  if (!Number.isInteger(keys) || keys < 1 || keys > REQUESTS) {
    throw new Error(`BENCH_BULK_KEYS: "${value}" is no whole number from 1 to ${REQUESTS}`);
  }
  return keys;
});
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

interface Shape {
  keys: number;
  peak: number;
  before: number;
  statuses: Map<string, number>;
  seconds: number;
}

/** One shape: a fresh database and service process, the burst spread over `keys` keys. */
async function runShape(
  keys: number,
  domains: readonly string[],
  dnsAddress: string,
  gate: Record<string, string>,
): Promise<Shape> {
  const database = await createTestDatabase("sqlite");
  const service = await startServiceProcess({
    workers: 1,
    env: {
      DATABASE_URL: database.url,
      DNS_SERVERS: dnsAddress,
      DNS_TIMEOUT_MS: "2000",
      AGE_LOOKUP: "off",
      // Every connection of the burst reaches the server: the gate is what is measured.
      MAX_CONNECTIONS_PER_CLIENT: String(REQUESTS + 16),
      ...gate,
    },
  });
  try {
    const pid = service.listeningPids()[0] as number;
    const secrets = await createKeysIn(database.location, "bulk-memory", 1_000_000_000, keys);
    const before = statusBytes(pid, "VmRSS");
    const slices = WORLD / ITEMS;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, r) => {
        const start = (r % slices) * ITEMS;
        const response = await fetch(`${service.url}/v2/bulk`, {
          method: "POST",
          headers: { authorization: `Bearer ${secrets[r % keys]}`, "content-type": "application/json" },
          body: JSON.stringify({ items: domains.slice(start, start + ITEMS) }),
        });
        const body = (await response.json()) as { results?: unknown[] };
        if (response.status === 200 && body.results?.length !== ITEMS) throw new Error("a short answer");
        if (response.status !== 200 && !response.headers.get("retry-after"))
          throw new Error("no Retry-After");
        return response.status;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (answers.some((status) => ![200, 429, 503].includes(status))) throw new Error("an unexpected status");
    return { keys, peak: statusBytes(pid, "VmHWM"), before, statuses: count(answers, String), seconds };
  } finally {
    await service.stop();
    await database.drop();
  }
}

function shapeName(keys: number): string {
  return keys === 1 ? "one key" : `${formatCount(keys)} keys`;
}

function shapeRows({ keys, peak, before, statuses, seconds }: Shape): FigureRow[] {
  const name = shapeName(keys);
  return [
    [`peak RSS, ${REQUESTS} requests, ${name}`, megabytes(peak), "< 600 MB", peak < TARGET_BYTES],
    [`RSS before the burst, ${name}`, megabytes(before), "", null],
    [
      `answered 200 / 429 / 503, ${name}`,
      `${statuses.get("200") ?? 0} / ${statuses.get("429") ?? 0} / ${statuses.get("503") ?? 0}`,
      "",
      null,
    ],
    [`whole burst, ${name}`, `${seconds.toFixed(1)} s`, "", null],
  ];
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const { domains, fixture } = trafficWorld({ domains: WORLD });
  const dns = await startDnsServerProcess(fixture);
  const gate = Object.fromEntries(
    ["BULK_CONCURRENT_PER_KEY", "BULK_CONCURRENT_TOTAL"].flatMap((name) =>
      process.env[name] ? [[name, process.env[name] as string]] : [],
    ),
  );
  try {
    const shapes: Shape[] = [];
    for (const keys of SHAPES) shapes.push(await runShape(keys, domains, dns.address, gate));
    const checked = shapes.map(
      (shape) => `${shapeName(shape.keys)}: ${formatCount((shape.statuses.get("200") ?? 0) * ITEMS)}`,
    );
    finish({
      title: "mailrisk bulk memory",
      script: "bench:bulk-memory",
      loadBefore,
      rows: shapes.flatMap(shapeRows),
      knobs: { BENCH_BULK_REQUESTS: REQUESTS, BENCH_BULK_KEYS: KEYS_KNOB, ...gate },
      notes: [
        `\n${REQUESTS} parallel POST /v2/bulk of ${formatCount(ITEMS)} new items each, spread over the keys of each shape, to \`mailrisk serve --workers 1\`` +
          ` on a SQLite file, a fresh process and database per shape; items checked (${checked.join(", ")}) over the loopback DNS server (child process); domain age off.` +
          ` Gate: ${Object.keys(gate).length > 0 ? JSON.stringify(gate) : "the defaults (2 per key, 8 in all)"}.`,
      ],
    });
  } finally {
    dns.stop();
  }
}

await main();
