/**
 * Two builds of mailrisk side by side (`BENCH_AGAINST=/path/to/other/checkout npm run
 * bench:http-against`): `mailrisk serve` of this checkout and of the other one (built
 * there first, with its own `bench/served.ts`), each in a process of its own with a world
 * of its own, sent the same cached requests at a fixed rate (BENCH_RATE, default 3,000
 * requests/s, 50 connections; 0: as fast as each serves) in alternated rounds of
 * BENCH_SECONDS (default 5). At a fixed rate below what either serves, the servers' CPU
 * time per request (from `/proc`) compares the builds' work, where a saturated rate on a
 * shared machine mostly says what the other tenants did. Prints each build's CPU µs a
 * request and p99, round by round.
 */
import "./test-names.js";
import { loadavg } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { CONNECTIONS } from "./load.js";
import { type FigureRow, finish, median } from "./report.js";
import * as here from "./served.js";

const AGAINST = process.env.BENCH_AGAINST;
if (!AGAINST)
  throw new Error("BENCH_AGAINST: the checkout to compare with (its own bench/served.ts and dist/)");
const RATE = Number(process.env.BENCH_RATE ?? 3000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const there = (await import(join(AGAINST, "bench/served.ts"))) as typeof here;

interface Side {
  name: string;
  served: here.Served;
  secret: string;
}

function request(side: Side, post: boolean): Parameters<typeof autocannon>[0] {
  const { url } = side.served;
  return post
    ? {
        url: `${url}/v2/`,
        method: "POST",
        headers: {
          authorization: `Bearer ${side.secret}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: `domain=${here.DOMAIN}`,
      }
    : { url: `${url}/?domain=${here.DOMAIN}`, headers: { "x-gateway-key": side.secret } };
}

/** CPU µs a request and p99 of one round of one side. */
async function round(side: Side, post: boolean): Promise<{ micros: number; p99: number }> {
  const before = await here.cpuMicros(side.served.pid);
  const result = await autocannon({
    ...request(side, post),
    connections: CONNECTIONS,
    duration: SECONDS,
    ...(RATE > 0 ? { overallRate: RATE } : {}),
  });
  const after = await here.cpuMicros(side.served.pid);
  return { micros: (after - before) / result.requests.total, p99: result.latency.p99 };
}

const loadBefore = loadavg()[0] ?? 0;
here.build();
const worlds = [await here.openWorld(), await there.openWorld()];
const sides: Side[] = [];
try {
  for (const [name, served, world] of [
    ["this build", here, worlds[0]],
    ["BENCH_AGAINST", there, worlds[1]],
  ] as const) {
    if (!world) throw new Error("no world");
    const side = { name, served: await served.serveMailrisk(world), secret: world.secret };
    sides.push(side);
    await served.answersOf(side.served.url, world.secret);
  }
  const rows: FigureRow[] = [];
  for (const post of [true, false]) {
    const route = post ? "POST /v2/ (form body)" : "GET /?domain=";
    const micros = new Map<string, number[]>();
    for (let at = 0; at < ROUNDS; at++) {
      const order = at % 2 === 0 ? sides : [...sides].reverse();
      const line: string[] = [];
      for (const side of order) {
        const { micros: used, p99 } = await round(side, post);
        micros.set(side.name, [...(micros.get(side.name) ?? []), used]);
        line.push(`${side.name} ${used.toFixed(1)} µs a request, p99 ${p99} ms`);
      }
      console.error(`${route} #${at + 1}: ${line.join("; ")}`);
    }
    const [ours, theirs] = sides.map((side) => median(micros.get(side.name) ?? []));
    rows.push([
      `${route}, CPU µs a request, this build vs BENCH_AGAINST`,
      `${ours?.toFixed(1)} vs ${theirs?.toFixed(1)} (${((ours ?? 0) / (theirs ?? 1)).toFixed(2)} ×)`,
      "",
      null,
    ]);
  }
  finish({
    title: `two builds of mailrisk serve at ${RATE > 0 ? `${RATE} requests/s` : "full speed"}, ${CONNECTIONS} connections, ${ROUNDS} alternated rounds of ${SECONDS} s`,
    script: "bench:http-against",
    loadBefore,
    rows,
    knobs: { BENCH_AGAINST: AGAINST, BENCH_RATE: RATE, BENCH_SECONDS: SECONDS, BENCH_ROUNDS: ROUNDS },
  });
} finally {
  await Promise.all(sides.map((side) => side.served.stop()));
  await Promise.all(worlds.map((world) => world.close()));
}
