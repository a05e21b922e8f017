/**
 * What the cold-path benchmark (bench/cold.ts) and its profile (`npm run profile:cold`,
 * bench/http-profile.ts) share: the unseen domains, a second key, and a run that checks
 * each domain once through a server at CONNECTIONS at a time.
 */
import { join } from "node:path";
import autocannon from "autocannon";
import { addMailDomain, type ZoneNames } from "../harness/mail-zones.js";
import { openStore } from "../src/store/index.js";
import { CONNECTIONS } from "./load.js";
import { cpuMicros, type Served, type World } from "./served.js";

/** The i-th unseen domain: each a working mail domain of its own in the world's DNS. */
export const domainName = (i: number) => `cold-${i}.com`;

/** The unseen domains `from`, `from + 1`, … (`count` of them). */
export const domainNames = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => domainName(from + i));

/** The first `count` unseen domains added to `names`, each its own mail server (`own-server`). */
export function addColdDomains(names: ZoneNames, count: number): void {
  for (let i = 0; i < count; i++) addMailDomain(names, domainName(i), "own-server");
}

export interface ColdRun {
  rate: number;
  p99: number;
  failures: number;
  queriesPerCheck: number;
  cpuMicros: number;
}

/** Checks each of `domains` once on `server`, CONNECTIONS at a time, the keys `secrets` in turn. */
export async function checkAll(
  server: Served,
  world: World,
  secrets: readonly string[],
  domains: readonly string[],
): Promise<ColdRun> {
  let next = 0;
  const queriesBefore = (await world.dns.stats()).queries;
  const cpuBefore = await cpuMicros(server.pid);
  const started = performance.now();
  let lastAnswer = started;
  const run = autocannon({
    url: server.url,
    connections: CONNECTIONS,
    amount: domains.length,
    timeout: 30,
    requests: [
      {
        method: "POST",
        path: "/v2/",
        setupRequest: (request) => {
          const at = next++;
          return {
            ...request,
            headers: {
              authorization: `Bearer ${secrets[at % secrets.length]}`,
              "content-type": "application/x-www-form-urlencoded",
            },
            body: `domain=${domains[at % domains.length]}`,
          };
        },
      },
    ],
  });
  run.on("response", () => {
    lastAnswer = performance.now();
  });
  const result = await run;
  const seconds = (lastAnswer - started) / 1000;
  const queries = (await world.dns.stats()).queries - queriesBefore;
  return {
    rate: domains.length / seconds,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    queriesPerCheck: queries / domains.length,
    cpuMicros: ((await cpuMicros(server.pid)) - cpuBefore) / domains.length,
  };
}

/**
 * A second key on the world's plan: the checks come from two clients, as one key holds at
 * most half of the API's look-up budget of 64 (docs/security.md "Fair look-ups"), which
 * CONNECTIONS checks of one key at a time would pass.
 */
export async function anotherKey(world: World): Promise<string> {
  const store = await openStore({ dialect: "sqlite", path: join(world.dir, "mailrisk.db") });
  try {
    return (await store.keys.createKey({ plan: "bench", now: new Date() })).secret;
  } finally {
    await store.close();
  }
}
