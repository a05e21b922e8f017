/**
 * Soak (`npm run bench:soak`): the service as deployed (`mailrisk serve` in a child
 * process, request log at info) under mixed traffic for BENCH_SOAK_SECONDS (default
 * 600), with DNS from the loopback server in a child process serving a generated world
 * (harness/traffic-world.ts) and loopback RDAP and WHOIS servers (domain age on), on
 * SQLite (default) or PostgreSQL (BENCH_SOAK_DB=postgres). RECORD_TTL and NEGATIVE_TTL
 * are 20 s, so records expire during the run. The abuse limits are raised out of the way
 * (PAGE_RATE_LIMIT and PAGE_GLOBAL_RATE_LIMIT for the pages, BULK_CONCURRENT_PER_KEY and
 * _TOTAL for the one key's bulk requests): they have tests of their own, and on a quiet
 * machine the 16 clients reach them (pages at ~370/s against 6,000 a minute).
 *
 * Kinds of request, each with the statuses it may get (any other fails the run):
 *   cached        GET /?domain=  one of 20 hot domains                        200
 *   cold          POST /v2/      a domain never asked before                  200
 *   expired       GET /?domain=  a domain first asked ≥ 25 s ago (stale)      200
 *   invalid       POST /v2/      a malformed domain or address                400
 *   unauthorised  GET /?domain=  a wrong key                                  401
 *   bulk          POST /v2/bulk  50 items: hot, new and one malformed         200
 *   page          GET /domain/<d> as a browser                                200
 *   usage         GET /v2/usage                                              200
 *
 * It samples the serving processes' RSS and open file descriptors (/proc/<pid>/status,
 * /proc/<pid>/fd) at the start, every minute and at the end, and reports p50/p99 per
 * kind. Every loop is bounded in time and count; nothing leaves the machine.
 */
import "./test-names.js";
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createTestDatabase, type DatabaseKind } from "../harness/databases.js";
import { startDnsServerProcess } from "../harness/dns-server-process.js";
import { startRdapServer, startWhoisServer, writeBootstrap } from "../harness/loopback-registries.js";
import { startServiceProcess } from "../harness/service-process.js";
import { trafficWorld } from "../harness/traffic-world.js";
import { openStore } from "../src/store/index.js";
import { type FigureRow, finish, formatCount, formatMegabytes, percentile } from "./report.js";

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const DB = (process.env.BENCH_SOAK_DB ?? "sqlite") as DatabaseKind;
const WORKERS = Number(process.env.BENCH_SOAK_WORKERS ?? 1);
/** Requests in flight at any time. */
const CLIENTS = Number(process.env.BENCH_SOAK_CLIENTS ?? 16);
const DOMAINS = Number(process.env.BENCH_SOAK_DOMAINS ?? 40_000);
const RECORD_TTL_SECONDS = 20;
/** A domain first asked this long ago has a stale record. */
const EXPIRED_AFTER_MS = (RECORD_TTL_SECONDS + 5) * 1000;
const SAMPLE_EVERY_MS = 60_000;
const HOT = 20;
const BULK_ITEMS = 50;
/** A hard bound on requests, whatever the speed. */
const MAX_REQUESTS = 20_000_000;

const KINDS = ["cached", "cold", "expired", "invalid", "unauthorised", "bulk", "page", "usage"] as const;
type Kind = (typeof KINDS)[number];
const EXPECTED: Record<Kind, readonly number[]> = {
  cached: [200],
  cold: [200],
  expired: [200],
  invalid: [400],
  unauthorised: [401],
  bulk: [200],
  page: [200],
  usage: [200],
};
/** Shares of the mix, out of 100. */
const WEIGHTS: Record<Kind, number> = {
  cached: 40,
  cold: 8,
  expired: 10,
  invalid: 8,
  unauthorised: 8,
  bulk: 1,
  page: 15,
  usage: 10,
};
const INVALID = ["not a domain", "a@@example.com", "exa mple.com", "1.2.3.4", "-bad-.com", "x".repeat(321)];

interface Sample {
  atSeconds: number;
  rssBytes: number;
  fds: number;
}

function sampleProcesses(pids: readonly number[], startedAt: number): Sample {
  let rssBytes = 0;
  let fds = 0;
  for (const pid of pids) {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    rssBytes += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
    fds += readdirSync(`/proc/${pid}/fd`).length;
  }
  return { atSeconds: Math.round((performance.now() - startedAt) / 1000), rssBytes, fds };
}

/** Which domains were asked when: the source of new ones and of expired ones. */
class DomainPool {
  private next = HOT;
  /** Domains in the order they were first asked (so also in time order). */
  private readonly asked: { domain: string; at: number }[] = [];
  /** `asked[0 .. ripe)` were first asked at least EXPIRED_AFTER_MS ago. */
  private ripe = 0;

  constructor(private readonly domains: readonly string[]) {}

  hot(): string {
    return this.domains[Math.floor(Math.random() * HOT)] as string;
  }

  /** A domain never asked, or undefined when the world is used up. */
  fresh(): string | undefined {
    if (this.next >= this.domains.length) return undefined;
    const domain = this.domains[this.next++] as string;
    this.asked.push({ domain, at: performance.now() });
    return domain;
  }

  /** A random domain first asked long enough ago that its record has expired, if any. */
  expired(): string | undefined {
    const now = performance.now();
    while (this.ripe < this.asked.length && now - (this.asked[this.ripe]?.at ?? now) >= EXPIRED_AFTER_MS) {
      this.ripe += 1;
    }
    return this.ripe === 0 ? undefined : this.asked[Math.floor(Math.random() * this.ripe)]?.domain;
  }
}

interface Request {
  kind: Kind;
  url: string;
  init: RequestInit;
}

function pickKind(): Kind {
  let draw = Math.random() * 100;
  for (const kind of KINDS) {
    draw -= WEIGHTS[kind];
    if (draw < 0) return kind;
  }
  return "cached";
}

function requestFor(base: string, secret: string, pool: DomainPool): Request {
  const kind = pickKind();
  const bearer = { authorization: `Bearer ${secret}` };
  const json = { ...bearer, "content-type": "application/json" };
  const gateway = (domain: string, key = secret) => ({
    url: `${base}/?domain=${domain}`,
    init: { headers: { "x-gateway-key": key } },
  });
  switch (kind) {
    case "cached":
      return { kind, ...gateway(pool.hot()) };
    case "cold": {
      const domain = pool.fresh();
      if (domain === undefined) return { kind: "cached", ...gateway(pool.hot()) };
      return {
        kind,
        url: `${base}/v2/`,
        init: { method: "POST", headers: json, body: JSON.stringify({ email: `someone@${domain}` }) },
      };
    }
    case "expired": {
      const domain = pool.expired();
      return domain === undefined ? { kind: "cached", ...gateway(pool.hot()) } : { kind, ...gateway(domain) };
    }
    case "invalid": {
      const value = INVALID[Math.floor(Math.random() * INVALID.length)] as string;
      const field = value.includes("@") ? "email" : "domain";
      return {
        kind,
        url: `${base}/v2/`,
        init: { method: "POST", headers: json, body: JSON.stringify({ [field]: value }) },
      };
    }
    case "unauthorised":
      return { kind, ...gateway(pool.hot(), "mr_notAKeyOfThisService0000000000") };
    case "bulk": {
      const items = Array.from({ length: BULK_ITEMS }, (_, i) =>
        i === 0 ? "not a domain" : i % 2 === 0 ? pool.hot() : (pool.fresh() ?? pool.hot()),
      );
      return {
        kind,
        url: `${base}/v2/bulk`,
        init: { method: "POST", headers: json, body: JSON.stringify({ items }) },
      };
    }
    case "page":
      return {
        kind,
        url: `${base}/domain/${Math.random() < 0.5 ? pool.hot() : (pool.expired() ?? pool.hot())}`,
        init: { headers: { accept: "text/html,application/xhtml+xml" } },
      };
    case "usage":
      return { kind, url: `${base}/v2/usage`, init: { headers: bearer } };
  }
}

interface Outcome {
  latencies: Record<Kind, number[]>;
  statuses: Map<string, number>;
  unexpected: Map<string, number>;
  errors: Map<string, number>;
  total: number;
}

async function drive(base: string, secret: string, pool: DomainPool, deadline: number): Promise<Outcome> {
  const outcome: Outcome = {
    latencies: Object.fromEntries(KINDS.map((kind) => [kind, []])) as unknown as Record<Kind, number[]>,
    statuses: new Map(),
    unexpected: new Map(),
    errors: new Map(),
    total: 0,
  };
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const client = async () => {
    while (performance.now() < deadline && outcome.total < MAX_REQUESTS) {
      const request = requestFor(base, secret, pool);
      outcome.total += 1;
      const started = performance.now();
      try {
        const response = await fetch(request.url, { ...request.init, signal: AbortSignal.timeout(30_000) });
        await response.arrayBuffer();
        outcome.latencies[request.kind].push(performance.now() - started);
        bump(outcome.statuses, `${request.kind} ${response.status}`);
        if (!EXPECTED[request.kind].includes(response.status)) {
          bump(outcome.unexpected, `${request.kind} ${response.status}`);
        }
      } catch (error) {
        bump(outcome.errors, `${request.kind} ${(error as Error).name}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return outcome;
}

async function seedKey(location: Parameters<typeof openStore>[0]): Promise<string> {
  const store = await openStore(location);
  try {
    await store.migrate();
    await store.plans.createPlan({ name: "soak", quota: 2_000_000_000, periodDays: 30 });
    return (await store.keys.createKey({ plan: "soak", name: "soak", now: new Date() })).secret;
  } finally {
    await store.close();
  }
}

function describeSample(sample: Sample): string {
  return `${formatMegabytes(sample.rssBytes)} RSS, ${sample.fds} fds`;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const { domains, fixture } = trafficWorld({ domains: DOMAINS, seed: 20_261_124 });
  const dns = await startDnsServerProcess(fixture);
  const rdap = await startRdapServer(() => ({ status: 404 }));
  const whois = await startWhoisServer(() => "No match for this domain.\r\n");
  const database = await createTestDatabase(DB);
  try {
    const secret = await seedKey(database.location);
    const service = await startServiceProcess({
      workers: WORKERS,
      env: {
        DATABASE_URL: database.url,
        DNS_SERVERS: dns.address,
        DNS_TIMEOUT_MS: "2000",
        RECORD_TTL: String(RECORD_TTL_SECONDS),
        NEGATIVE_TTL: String(RECORD_TTL_SECONDS),
        PAGE_RATE_LIMIT: "1000000",
        PAGE_GLOBAL_RATE_LIMIT: "1000000",
        BULK_CONCURRENT_PER_KEY: String(CLIENTS),
        BULK_CONCURRENT_TOTAL: String(CLIENTS),
        RDAP_BOOTSTRAP_FILE: await writeBootstrap({ com: rdap.baseUrl, net: rdap.baseUrl }),
        WHOIS_SERVER: whois.address,
      },
    });
    const pids = service.listeningPids();
    const startedAt = performance.now();
    const samples: Sample[] = [sampleProcesses(pids, startedAt)];
    const sampler = setInterval(() => samples.push(sampleProcesses(pids, startedAt)), SAMPLE_EVERY_MS);
    let outcome: Outcome;
    try {
      outcome = await drive(service.url, secret, new DomainPool(domains), startedAt + SECONDS * 1000);
    } finally {
      clearInterval(sampler);
    }
    samples.push(sampleProcesses(pids, startedAt));
    const elapsed = (performance.now() - startedAt) / 1000;
    const exitCode = await service.stop();

    console.log(`\nserving processes ${pids.join(", ")}; RSS and open file descriptors over the run:`);
    for (const sample of samples)
      console.log(`  ${String(sample.atSeconds).padStart(4)} s  ${describeSample(sample)}`);
    console.log("\nstatuses:", Object.fromEntries([...outcome.statuses].sort()));
    for (const [what, n] of outcome.errors) console.log(`  request error ×${n}: ${what}`);

    const first = samples[0] as Sample;
    const last = samples.at(-1) as Sample;
    const rows: FigureRow[] = [
      [
        `requests in ${formatCount(elapsed)} s, ${CLIENTS} in flight`,
        `${formatCount(outcome.total)} (${formatCount(outcome.total / elapsed)}/s)`,
        "",
        null,
      ],
      ...KINDS.map((kind): FigureRow => {
        const sorted = [...outcome.latencies[kind]].sort((a, b) => a - b);
        return [
          `${kind} (${formatCount(sorted.length)})`,
          `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`,
          EXPECTED[kind].join("/"),
          sorted.length > 0 && ![...outcome.unexpected.keys()].some((key) => key.startsWith(`${kind} `)),
        ];
      }),
      [
        "unexpected statuses",
        JSON.stringify(Object.fromEntries(outcome.unexpected)),
        "none",
        outcome.unexpected.size === 0,
      ],
      [
        "request errors (timeouts, resets)",
        formatCount([...outcome.errors.values()].reduce((a, b) => a + b, 0)),
        "0",
        outcome.errors.size === 0,
      ],
      [
        "RSS, start → end",
        `${formatMegabytes(first.rssBytes)} → ${formatMegabytes(last.rssBytes)}`,
        "",
        null,
      ],
      ["RSS, highest sample", formatMegabytes(Math.max(...samples.map((s) => s.rssBytes))), "", null],
      ["open file descriptors, start → end", `${first.fds} → ${last.fds}`, "", null],
      ["service exit code on SIGTERM", String(exitCode), "0", exitCode === 0],
    ];
    finish({
      title: `mailrisk soak — ${DB}, ${WORKERS} worker${WORKERS === 1 ? "" : "s"}, ${SECONDS} s of mixed traffic`,
      script: "bench:soak",
      loadBefore,
      rows,
      knobs: { BENCH_SOAK_SECONDS: SECONDS, BENCH_SOAK_DB: DB, BENCH_SOAK_WORKERS: WORKERS },
    });
  } finally {
    dns.stop();
    await Promise.all([rdap.close(), whois.close()]);
    await database.drop();
  }
}

await main();
