/**
 * Engine benchmark (`npm run bench:engine`), the figures the README quotes:
 *
 * 1. Checks per second of the engine on one core: input parsing, `checkDomain` and the
 *    per-address step over a realistic mix of distinct domains (Google Workspace and
 *    Microsoft 365 tenants, own mail servers, real disposable, free-provider and
 *    forwarder entries, parked domains, typos, fallback, null MX, NXDOMAIN …), DNS
 *    answered by the in-memory resolver. Target ≥ 50,000 checks/s.
 * 2. End to end over the wire: NodeDnsResolver (c-ares, UDP) against the loopback
 *    authoritative test DNS server (test/support/dns-server.ts, dns-packet) running in
 *    a child process so it does not share the engine's core; 64 checks in flight, each
 *    domain checked once. Target ≥ 1,000 distinct domains/s.
 * 3. Start-up: a fresh `node` process running the compiled code (src/ compiled into a
 *    temporary directory) from process start until the lists are loaded and the typo
 *    index is built, and its RSS then. Targets ≤ 1 s, ≤ 200 MB.
 *
 * Domain age (RDAP/WHOIS) is left out: it is a network look-up of its own, run in
 * parallel with DNS and cached per base domain. The clock is fixed, so a record from
 * the wire can be compared byte for byte with the in-memory one.
 */

import { execFile as execFileCallback, execFileSync, fork } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { CheckDeps } from "../src/core/check.js";
import type { DnsResolver } from "../src/core/dns.js";
import { NodeDnsResolver } from "../src/core/node-dns-resolver.js";
import type { CheckRecord } from "../src/core/record.js";
import { TypoIndex } from "../src/core/typo.js";
import { readCuratedLists } from "../src/data/curated.js";
import { DATA_DIR, loadDomainLists } from "../src/data/domain-lists.js";
import { GENERATED_FILES, parseGeneratedFile } from "../src/data/generated.js";
import { normaliseDomain } from "../src/data/names.js";
import { checkInput } from "../test/support/check-input.js";
import { startDnsServer } from "../test/support/dns-server.js";
import {
  addMailDomain,
  addName,
  addNameServers,
  wholeTreeFixture,
  type ZoneNames,
} from "../test/support/mail-zones.js";
import { MemoryResolver } from "../test/support/memory-resolver.js";
import { type Random, randomIndex, sample, seededRandom } from "../test/support/seeded-random.js";
import { type ZoneFixture, Zones } from "../test/support/zones.js";
import { describeMachine } from "./machine.js";

const execFile = promisify(execFileCallback);

const SEED = 20_250_101;
const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const E2E_DOMAINS = Number(process.env.BENCH_E2E_DOMAINS ?? 10_000);
const E2E_WARMUP = 1_000;
const IN_FLIGHT = 64;
const DNS_TIMEOUT_MS = 2_000;
const STARTUP_RUNS = 5;
/** A fixed clock, so wire records compare byte for byte; one Date, as a real clock costs no date parsing. */
const NOW = new Date("2025-01-01T00:00:00Z");
const CLOCK = () => NOW;
const ROOT = fileURLToPath(new URL("../", import.meta.url));

// ---------------------------------------------------------------- the domain mix

interface MixEntry {
  kind: string;
  /** What is checked: a domain or an address, as a user would type it. */
  input: string;
}

const WORDS = [
  "acme",
  "nordwind",
  "bluebird",
  "atlas",
  "harbor",
  "pixel",
  "granite",
  "meadow",
  "summit",
  "lumen",
  "orbit",
  "cedar",
  "vertex",
  "quill",
  "maple",
  "bücher",
  "müller",
  "café",
  "søren",
  "örnek",
];
const TLDS = ["com", "com", "com", "net", "org", "de", "fr", "nl", "io", "co.uk", "com.au", "ch"];

/** A fresh registrable name; some are Unicode (IDN), as users type them. */
function syntheticDomain(random: Random, serial: number): string {
  return `${WORDS[randomIndex(random, WORDS.length)]}-${serial}.${TLDS[randomIndex(random, TLDS.length)]}`;
}

/** Typing slips of a popular domain: adjacent transpositions and dropped letters of its first label. */
function typosOf(domain: string): string[] {
  const dot = domain.indexOf(".");
  const [label, rest] = [domain.slice(0, dot), domain.slice(dot)];
  const slips: string[] = [];
  for (let i = 0; i < label.length - 1; i++) {
    slips.push(`${label.slice(0, i)}${label[i + 1]}${label[i]}${label.slice(i + 2)}${rest}`);
  }
  for (let i = 0; i < label.length; i++) slips.push(`${label.slice(0, i)}${label.slice(i + 1)}${rest}`);
  return slips.filter((slip) => slip !== domain && !slip.startsWith("."));
}

/** How one input is typed: a domain (sometimes upper-case, trailing dot) or an address, sometimes a role one. */
function asInput(domain: string, random: Random, serial: number): string {
  const roll = random();
  if (roll < 0.4) return domain;
  if (roll < 0.45) return `${domain.toUpperCase()}.`;
  if (roll < 0.9) return `user.${serial}@${domain}`;
  return `info@${domain}`;
}

/** Draws the items in random order, each once; undefined when all are drawn. */
function drawFrom(items: readonly string[], random: Random): () => string | undefined {
  const shuffled = sample(items, items.length, random);
  return () => shuffled.pop();
}

/**
 * The benchmark's domains and their zones. Shares of `count`: synthetic kinds are
 * unlimited; real list entries and typos are each drawn once (the free-provider and
 * forwarder lists are short, so the mix holds all of them), and every domain in the mix
 * is distinct.
 */
function domainMix(count: number): { entries: MixEntry[]; fixture: ZoneFixture } {
  const random = seededRandom(SEED);
  const curated = readCuratedLists(DATA_DIR);
  const generated = (file: string) => [
    ...parseGeneratedFile(readFileSync(join(DATA_DIR, file), "utf8"), file).sources.keys(),
  ];
  const infrastructure = curated.disposableInfrastructure.map((e) => e.entry);
  const parking = curated.parkingHosts.map((e) => e.entry);
  const names: ZoneNames = {};
  infrastructure.forEach((entry, index) => {
    addName(names, `mx.${entry}`, { A: [`192.0.2.${100 + index}`] });
  });
  const used = new Set<string>();
  let serial = 0;
  let tenants = 0;
  const fresh = () => syntheticDomain(random, ++serial);

  /** Each kind: its share of the mix, where its domains come from, and the records it gets. */
  const kinds: {
    kind: string;
    share: number;
    domains: () => string | undefined;
    records: (domain: string) => void;
  }[] = [
    {
      kind: "Google Workspace",
      share: 0.18,
      domains: fresh,
      records: (d) => addMailDomain(names, d, "google-workspace"),
    },
    {
      kind: "Microsoft 365",
      share: 0.14,
      domains: fresh,
      records: (d) => {
        // Microsoft names the host after the domain; a counter keeps IDN names out of the label.
        const host = `tenant-${++tenants}.mail.protection.outlook.com`;
        addName(names, d, { MX: [`0 ${host}`], A: ["198.51.100.81"] });
        addName(names, host, { A: ["192.0.2.40", "192.0.2.41"] });
        addNameServers(names, d, ["ns1-01.azure-dns.com", "ns2-01.azure-dns.net"]);
      },
    },
    {
      kind: "own mail server",
      share: 0.14,
      domains: fresh,
      records: (d) => addMailDomain(names, d, "own-server"),
    },
    {
      kind: "subdomain on Google",
      share: 0.04,
      domains: () => `mail.${fresh()}`,
      records: (d) => addMailDomain(names, d, "google-workspace"),
    },
    {
      kind: "disposable, listed",
      share: 0.14,
      domains: drawFrom(generated(GENERATED_FILES.disposable), random),
      records: (d) =>
        random() < 0.5
          ? addMailDomain(names, d, "own-server")
          : addName(names, d, {
              MX: [`10 mx.${infrastructure[randomIndex(random, infrastructure.length)]}`],
            }),
    },
    {
      kind: "disposable infrastructure",
      share: 0.03,
      domains: fresh,
      records: (d) =>
        addName(names, d, { MX: [`10 mx.${infrastructure[randomIndex(random, infrastructure.length)]}`] }),
    },
    {
      kind: "free provider",
      share: 0.05,
      domains: drawFrom(
        curated.categories.free.map((e) => e.entry),
        random,
      ),
      records: (d) => addMailDomain(names, d, "own-server"),
    },
    {
      kind: "forwarder",
      share: 0.02,
      domains: drawFrom(generated(GENERATED_FILES.forwarders), random),
      records: (d) => addMailDomain(names, d, "own-server"),
    },
    {
      kind: "parked",
      share: 0.05,
      domains: fresh,
      records: (d) => {
        const service = parking[randomIndex(random, parking.length)];
        addName(names, d, { A: ["198.51.100.99"], NS: [`ns1.${service}`, `ns2.${service}`] });
      },
    },
    {
      kind: "typo of a popular domain",
      share: 0.05,
      domains: drawFrom(curated.popular.flatMap(typosOf), random),
      records: (d) => addMailDomain(names, d, "own-server"),
    },
    {
      kind: "fallback (A only)",
      share: 0.06,
      domains: fresh,
      records: (d) => addName(names, d, { A: ["198.51.100.82"], NS: ["ns1.dns-host.example"] }),
    },
    {
      kind: "null MX",
      share: 0.02,
      domains: fresh,
      records: (d) => addName(names, d, { MX: ["0 ."], A: ["198.51.100.83"] }),
    },
    {
      kind: "no MX, no address",
      share: 0.02,
      domains: fresh,
      records: (d) => addName(names, d, { NS: ["ns1.dns-host.example"] }),
    },
    { kind: "NXDOMAIN", share: 0.06, domains: fresh, records: () => {} },
  ];

  const entries: MixEntry[] = [];
  for (const { kind, share, domains, records } of kinds) {
    const wanted = Math.round(share * count);
    for (let taken = 0; taken < wanted; ) {
      const domain = domains();
      if (domain === undefined) break;
      // A typing slip can make an invalid name (`-online.de`): not an input the engine gets.
      const ascii = normaliseDomain(domain);
      if (ascii === undefined || used.has(ascii)) continue;
      used.add(ascii);
      records(ascii);
      entries.push({ kind, input: asInput(domain, random, serial + entries.length) });
      taken++;
    }
  }
  return { entries: sample(entries, entries.length, random), fixture: wholeTreeFixture(names) };
}

// ---------------------------------------------------------------- checking

function engineDeps(resolver: DnsResolver): CheckDeps {
  const lists = loadDomainLists();
  return { lists, typos: new TypoIndex(lists.popular), resolver, clock: CLOCK };
}

function count<T>(items: Iterable<T>, key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

interface EngineFigure {
  checksPerSecond: number;
  checks: number;
  seconds: number;
  /** CPU time over wall time: how many cores the run kept busy. */
  cores: number;
  /** Record per input, for comparing the wire run with. */
  records: Map<string, string>;
}

/** DNS from memory, batches of IN_FLIGHT awaited in turn: one core, no I/O. */
async function benchEngine(entries: readonly MixEntry[], resolver: DnsResolver): Promise<EngineFigure> {
  const deps = engineDeps(resolver);
  const inputs = entries.map((e) => e.input);
  const pass = async (keep?: Map<string, string>) => {
    for (let start = 0; start < inputs.length; start += IN_FLIGHT) {
      const batch = inputs.slice(start, start + IN_FLIGHT);
      const records = await Promise.all(batch.map((input) => checkInput(input, deps)));
      if (keep) {
        for (const [i, input] of batch.entries()) keep.set(input, JSON.stringify(records[i]));
      }
    }
  };
  const records = new Map<string, string>();
  await pass(records); // warm-up, and the reference records
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let checks = 0;
  while (performance.now() - started < SECONDS * 1000) {
    await pass();
    checks += inputs.length;
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    checksPerSecond: checks / seconds,
    checks,
    seconds,
    cores: (cpu.user + cpu.system) / 1e6 / seconds,
    records,
  };
}

interface WireFigure {
  domainsPerSecond: number;
  domains: number;
  p50: number;
  p99: number;
  max: number;
  dnsTroubles: number;
  /** Records that differ from the in-memory run's. */
  mismatches: string[];
  queriesPerCheck: number;
  /** Queries or answers lost on loopback (each costs a c-ares retry); null when unknown. */
  udpDrops: number | null;
  engineCores: number;
  serverCores: number;
}

/** Runs `inputs` with IN_FLIGHT checks in flight; latency of each check in ms. */
async function runInFlight(inputs: readonly string[], deps: CheckDeps, keep: Map<string, CheckRecord>) {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const input = inputs[next++] as string;
      const started = performance.now();
      keep.set(input, await checkInput(input, deps));
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return latencies;
}

/** UDP datagrams the kernel dropped for a full receive buffer (Linux /proc/net/snmp); null elsewhere. */
function udpReceiveDrops(): number | null {
  try {
    const [header, values] = readFileSync("/proc/net/snmp", "utf8")
      .split("\n")
      .filter((line) => line.startsWith("Udp:"))
      .map((line) => line.split(/\s+/));
    const value = values?.[header?.indexOf("RcvbufErrors") ?? -1];
    return value === undefined ? null : Number(value);
  } catch {
    return null;
  }
}

type ServerMessage = { address: string } | { queries: number; cpuMicros: number };

/** Child process: the loopback DNS server for the fixture it is sent; answers stats requests. */
function serveDns(): void {
  process.once("disconnect", () => process.exit(0));
  process.once("message", async (fixture: ZoneFixture) => {
    const server = await startDnsServer(new Zones(fixture));
    process.send?.({ address: server.address } satisfies ServerMessage);
    process.on("message", async (message) => {
      if (message === "stats") {
        const cpu = process.cpuUsage();
        process.send?.({
          queries: server.queries.total,
          cpuMicros: cpu.user + cpu.system,
        } satisfies ServerMessage);
      } else if (message === "stop") {
        await server.close();
        process.exit(0);
      }
    });
  });
}

async function benchWire(entries: readonly MixEntry[], fixture: ZoneFixture, reference: Map<string, string>) {
  const child = fork(fileURLToPath(import.meta.url), ["--dns-server"], { execArgv: process.execArgv });
  const ask = (message: "stats" | ZoneFixture) =>
    new Promise<ServerMessage>((resolve, reject) => {
      child.once("message", (answer) => resolve(answer as ServerMessage));
      child.once("exit", (code) => reject(new Error(`DNS server process exited with ${code}`)));
      child.send(message);
    });
  try {
    const { address } = (await ask(fixture)) as { address: string };
    const deps = engineDeps(new NodeDnsResolver({ servers: [address], timeoutMs: DNS_TIMEOUT_MS }));
    const inputs = entries.map((e) => e.input);
    const warmup = inputs.slice(0, E2E_WARMUP);
    const measured = inputs.slice(E2E_WARMUP, E2E_WARMUP + E2E_DOMAINS);
    await runInFlight(warmup, deps, new Map());

    const before = (await ask("stats")) as { queries: number; cpuMicros: number };
    const dropsBefore = udpReceiveDrops();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const records = new Map<string, CheckRecord>();
    const latencies = await runInFlight(measured, deps, records);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const dropsAfter = udpReceiveDrops();
    const after = (await ask("stats")) as { queries: number; cpuMicros: number };

    latencies.sort((a, b) => a - b);
    const troubles = [...records.values()].filter(
      (r) => r.reason === "DNS timeout" || r.reason === "DNS failure",
    );
    return {
      domainsPerSecond: measured.length / seconds,
      domains: measured.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? Number.NaN,
      dnsTroubles: troubles.length,
      mismatches: measured.filter((input) => JSON.stringify(records.get(input)) !== reference.get(input)),
      queriesPerCheck: (after.queries - before.queries) / measured.length,
      udpDrops: dropsBefore === null || dropsAfter === null ? null : dropsAfter - dropsBefore,
      engineCores: (cpu.user + cpu.system) / 1e6 / seconds,
      serverCores: (after.cpuMicros - before.cpuMicros) / 1e6 / seconds,
    } satisfies WireFigure;
  } finally {
    child.send("stop");
  }
}

// ---------------------------------------------------------------- start-up

/** Runs in a fresh `node`: imports the compiled loaders, loads everything, reports. */
const STARTUP_PROBE = `
import { pathToFileURL } from "node:url";
const [dist, dataDir] = process.argv.slice(1);
const booted = performance.now();
const { loadDomainLists } = await import(pathToFileURL(dist + "/data/domain-lists.js").href);
const { TypoIndex } = await import(pathToFileURL(dist + "/core/typo.js").href);
const imported = performance.now();
const lists = loadDomainLists(dataDir);
const typos = new TypoIndex(lists.popular);
const ready = performance.now();
const { rss, heapUsed } = process.memoryUsage();
if (typos.suggest("gmial.com")[0] !== "gmail.com") throw new Error("lists not loaded");
console.log(JSON.stringify({ booted, imports: imported - booted, load: ready - imported, ready, rss, heapUsed }));
`;

interface StartupFigure {
  booted: number;
  imports: number;
  load: number;
  ready: number;
  rss: number;
  heapUsed: number;
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/** Compiles src/ into a temporary directory (so dist/ is left alone) and starts it STARTUP_RUNS times. */
async function benchStartup(): Promise<StartupFigure> {
  // Under the project (so node_modules resolve), in its git-ignored .tmp/.
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  const tmp = mkdtempSync(join(ROOT, ".tmp", "bench-engine-"));
  try {
    execFileSync(
      join(ROOT, "node_modules/.bin/tsc"),
      ["-p", "tsconfig.build.json", "--outDir", tmp, "--sourceMap", "false", "--noCheck"],
      {
        cwd: ROOT,
        stdio: "inherit",
      },
    );
    const runs: StartupFigure[] = [];
    for (let run = 0; run < STARTUP_RUNS; run++) {
      const { stdout } = await execFile(process.execPath, [
        "--input-type=module",
        "--eval",
        STARTUP_PROBE,
        tmp,
        DATA_DIR,
      ]);
      runs.push(JSON.parse(stdout) as StartupFigure);
    }
    const key = (name: keyof StartupFigure) => median(runs.map((r) => r[name]));
    return {
      booted: key("booted"),
      imports: key("imports"),
      load: key("load"),
      ready: key("ready"),
      rss: key("rss"),
      heapUsed: key("heapUsed"),
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- report

function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

interface Figures {
  /** 1-minute load average when the run started: other work competing for the cores. */
  loadBefore: number;
  mix: readonly MixEntry[];
  /** The headline: DNS from the in-memory test resolver. */
  engine: EngineFigure;
  /** DNS queries one check asks, on average over the mix. */
  queriesPerCheck: number;
  wire: WireFigure;
  startup: StartupFigure;
}

function report({ loadBefore, mix, engine, queriesPerCheck, wire, startup }: Figures): boolean {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  const rows: [string, string, string, boolean | null][] = [
    [
      "engine, in-memory DNS, one core",
      `${formatCount(engine.checksPerSecond)} checks/s`,
      "≥ 50,000/s",
      engine.checksPerSecond >= 50_000,
    ],
    [
      "end to end, loopback DNS, 64 in flight",
      `${formatCount(wire.domainsPerSecond)} domains/s`,
      "≥ 1,000/s",
      wire.domainsPerSecond >= 1_000 && wire.dnsTroubles === 0 && wire.mismatches.length === 0,
    ],
    ["  latency per check p50 / p99", `${wire.p50.toFixed(1)} / ${wire.p99.toFixed(1)} ms`, "", null],
    [
      "start-up (process start → lists ready)",
      `${startup.ready.toFixed(0)} ms`,
      "≤ 1,000 ms",
      startup.ready <= 1_000,
    ],
    ["RSS with all lists loaded", mb(startup.rss), "≤ 200 MB", startup.rss <= 200 * 1024 * 1024],
  ];
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd([40, 20, 12, 7][i] ?? 0)).join(" | ")} |`;

  console.log("\nmailrisk engine benchmark — `npm run bench:engine`");
  console.log(`${describeMachine(loadBefore)}\n`);
  console.log(line(["figure", "measured", "target", "verdict"]));
  console.log(line(["---", "---", "---", "---"]));
  for (const [name, measured, target, ok] of rows) {
    console.log(line([name, measured, target, ok === null ? "" : ok ? "pass" : "MISS"]));
  }

  const mixLine = [...count(mix, (e) => e.kind)].map(([kind, n]) => `${kind} ${n}`).join(", ");
  const verdicts = [...count(engine.records.values(), (r) => (JSON.parse(r) as CheckRecord).reason)]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`)
    .join(", ");
  console.log(`\nmix: ${mix.length} distinct domains (seed ${SEED}) — ${mixLine}`);
  console.log(
    "inputs: 40 % bare domain, 5 % upper-case with trailing dot, 45 % address, 10 % role address (info@); Unicode names included",
  );
  console.log(`verdicts of the mix: ${verdicts}`);
  console.log(
    `\n1. engine: ${formatCount(engine.checks)} checks in ${engine.seconds.toFixed(1)} s after a warm-up pass; parse + checkDomain + forAddress,` +
      ` batches of ${IN_FLIGHT} awaited in turn; ${engine.cores.toFixed(2)} cores busy (CPU time / wall time).` +
      " DNS from the in-memory test resolver (test/support/memory-resolver.ts: each query counted, each (type, name)" +
      " resolved against the zones once, in the warm-up pass, then answered from a map as from a DNS cache);" +
      ` domain age not looked up. ${(1e6 / engine.checksPerSecond).toFixed(1)} µs per check.`,
  );
  console.log(
    `2. end to end: ${formatCount(wire.domains)} distinct domains (after ${E2E_WARMUP} others as warm-up), each checked once,` +
      ` ${IN_FLIGHT} in flight, NodeDnsResolver (node:dns / c-ares over UDP, deadline ${DNS_TIMEOUT_MS} ms) against the loopback` +
      " authoritative test server test/support/dns-server.ts (dns-packet on Node) in a separate child process.",
  );
  console.log(
    `   ${wire.queriesPerCheck.toFixed(2)} queries per check reached the server (the engine asks ${queriesPerCheck.toFixed(2)});` +
      ` UDP datagrams dropped for a full receive buffer (/proc/net/snmp, whole machine): ${wire.udpDrops ?? "unknown"}` +
      ` (seen to be mostly the test server's socket) — each costs its check a c-ares retry, hence the p99;` +
      ` max latency ${wire.max.toFixed(1)} ms;` +
      ` engine process ${wire.engineCores.toFixed(2)} cores, DNS server process ${wire.serverCores.toFixed(2)} cores;` +
      ` DNS timeouts/failures ${wire.dnsTroubles}; records differing from the in-memory run: ${wire.mismatches.length}` +
      (wire.mismatches.length > 0 ? ` (e.g. ${wire.mismatches.slice(0, 5).join(", ")})` : ""),
  );
  console.log(
    `3. start-up: median of ${STARTUP_RUNS} fresh \`node\` processes running src/ compiled by tsc (as \`npm start\` runs dist/):` +
      ` node boot ${startup.booted.toFixed(0)} ms + imports ${startup.imports.toFixed(0)} ms + loadDomainLists() and TypoIndex` +
      ` ${startup.load.toFixed(0)} ms; RSS then ${mb(startup.rss)}, of it JS heap ${mb(startup.heapUsed)}.`,
  );
  console.log(`\nknobs: BENCH_DOMAINS=${DOMAINS} BENCH_SECONDS=${SECONDS} BENCH_E2E_DOMAINS=${E2E_DOMAINS}`);
  return rows.every(([, , , ok]) => ok !== false);
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const { entries, fixture } = domainMix(DOMAINS);
  if (entries.length < E2E_WARMUP + E2E_DOMAINS) {
    throw new Error(
      `BENCH_DOMAINS=${DOMAINS} gives ${entries.length} domains; the wire run needs ${E2E_WARMUP + E2E_DOMAINS}`,
    );
  }
  const zones = new Zones(fixture);
  const memory = new MemoryResolver(zones, { log: "total" });
  const engine = await benchEngine(entries, memory);
  // Every pass (the warm-up too) asks the same queries.
  const queriesPerCheck = memory.queries.total / (engine.checks + entries.length);
  const wire = await benchWire(entries, fixture, engine.records);
  const startup = await benchStartup();
  process.exitCode = report({ loadBefore, mix: entries, engine, queriesPerCheck, wire, startup }) ? 0 : 1;
}

if (process.argv.includes("--dns-server")) serveDns();
else await main();
