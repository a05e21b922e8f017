/**
 * Wire benchmark (`npm run bench:wire`): end to end over the wire — NodeDnsResolver
 * (c-ares, UDP) against the loopback authoritative test DNS server (harness/dns-server.ts,
 * dns-packet) running in a child process (harness/dns-server-process.ts) so it does not
 * share the engine's core; 64 checks in flight, each domain of the mix
 * (harness/domain-mix.ts) checked once. Target ≥ 1,000 distinct domains/s. Every record
 * must equal the one the in-memory resolver gives (the clock is fixed).
 */
import "./test-names.js";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { checkInput } from "../harness/check-input.js";
import { startDnsServerProcess } from "../harness/dns-server-process.js";
import { domainMix, type MixEntry } from "../harness/domain-mix.js";
import { MemoryResolver } from "../harness/memory-resolver.js";
import { type ZoneFixture, Zones } from "../harness/zones.js";
import type { CheckDeps } from "../src/core/check.js";
import type { CheckRecord } from "../src/core/record.js";
import { NodeDnsResolver } from "../src/dns/node-dns-resolver.js";
import { checkInBatches, engineDeps, IN_FLIGHT } from "./checks.js";
import { finish, formatCount, percentile } from "./report.js";

const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 20_000);
const E2E_DOMAINS = Number(process.env.BENCH_E2E_DOMAINS ?? 10_000);
const E2E_WARMUP = 1_000;
const DNS_TIMEOUT_MS = 2_000;

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

/** The in-memory run's record of every input, and the DNS queries one check asks on average over the mix. */
async function inMemoryReference(entries: readonly MixEntry[], fixture: ZoneFixture) {
  const memory = new MemoryResolver(new Zones(fixture), { log: "total" });
  const records = new Map<string, string>();
  await checkInBatches(
    entries.map((e) => e.input),
    engineDeps(memory),
    records,
  );
  return { records, queriesPerCheck: memory.queries.total / entries.length };
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

async function benchWire(
  entries: readonly MixEntry[],
  fixture: ZoneFixture,
  reference: Map<string, string>,
): Promise<WireFigure> {
  const server = await startDnsServerProcess(fixture);
  try {
    const deps = engineDeps(new NodeDnsResolver({ servers: [server.address], timeoutMs: DNS_TIMEOUT_MS }));
    const inputs = entries.map((e) => e.input);
    const warmup = inputs.slice(0, E2E_WARMUP);
    const measured = inputs.slice(E2E_WARMUP, E2E_WARMUP + E2E_DOMAINS);
    await runInFlight(warmup, deps, new Map());

    const before = await server.stats();
    const dropsBefore = udpReceiveDrops();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const records = new Map<string, CheckRecord>();
    const latencies = await runInFlight(measured, deps, records);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const dropsAfter = udpReceiveDrops();
    const after = await server.stats();

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
    };
  } finally {
    server.stop();
  }
}

function report(loadBefore: number, queriesPerCheck: number, wire: WireFigure): void {
  const notes = [
    `\nend to end: ${formatCount(wire.domains)} distinct domains (after ${E2E_WARMUP} others as warm-up), each checked once,` +
      ` ${IN_FLIGHT} in flight, NodeDnsResolver (node:dns / c-ares over UDP, deadline ${DNS_TIMEOUT_MS} ms) against the loopback` +
      " authoritative test server harness/dns-server.ts (dns-packet on Node) in a separate child process.",
    `   ${wire.queriesPerCheck.toFixed(2)} queries per check reached the server (the engine asks ${queriesPerCheck.toFixed(2)});` +
      ` UDP datagrams dropped for a full receive buffer (/proc/net/snmp, whole machine): ${wire.udpDrops ?? "unknown"}` +
      ` (seen to be mostly the test server's socket) — each costs its check a c-ares retry, hence the p99;` +
      ` max latency ${wire.max.toFixed(1)} ms;` +
      ` engine process ${wire.engineCores.toFixed(2)} cores, DNS server process ${wire.serverCores.toFixed(2)} cores;` +
      ` DNS timeouts/failures ${wire.dnsTroubles}; records differing from the in-memory run: ${wire.mismatches.length}` +
      (wire.mismatches.length > 0 ? ` (e.g. ${wire.mismatches.slice(0, 5).join(", ")})` : ""),
  ];
  finish({
    title: "mailrisk wire benchmark",
    script: "bench:wire",
    loadBefore,
    rows: [
      [
        "end to end, loopback DNS, 64 in flight",
        `${formatCount(wire.domainsPerSecond)} domains/s`,
        "≥ 1,000/s",
        wire.domainsPerSecond >= 1_000 && wire.dnsTroubles === 0 && wire.mismatches.length === 0,
      ],
      ["  latency per check p50 / p99", `${wire.p50.toFixed(1)} / ${wire.p99.toFixed(1)} ms`, "", null],
    ],
    knobs: { BENCH_DOMAINS: DOMAINS, BENCH_E2E_DOMAINS: E2E_DOMAINS },
    notes,
  });
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const { entries, fixture } = domainMix(DOMAINS);
  if (entries.length < E2E_WARMUP + E2E_DOMAINS) {
    throw new Error(
      `BENCH_DOMAINS=${DOMAINS} gives ${entries.length} domains; the wire run needs ${E2E_WARMUP + E2E_DOMAINS}`,
    );
  }
  const reference = await inMemoryReference(entries, fixture);
  const wire = await benchWire(entries, fixture, reference.records);
  report(loadBefore, reference.queriesPerCheck, wire);
}

await main();
