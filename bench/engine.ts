/**
 * Engine benchmark (`npm run bench:engine`): checks per second of the engine on one
 * core — input parsing, `checkDomain` and the per-address step — over the domain mix
 * of harness/domain-mix.ts, DNS answered by the in-memory resolver. Target ≥ 50,000
 * checks/s. The same mix over the wire is bench/wire.ts; start-up is bench/startup.ts.
 */
import "./test-names.js";
import { loadavg } from "node:os";
import { domainMix, MIX_INPUTS, MIX_SEED, type MixEntry } from "../harness/domain-mix.js";
import { MemoryResolver } from "../harness/memory-resolver.js";
import { Zones } from "../harness/zones.js";
import type { DnsResolver } from "../src/core/dns.js";
import type { CheckRecord } from "../src/core/record.js";
import { checkInBatches, engineDeps, IN_FLIGHT } from "./checks.js";
import { count, finish, formatCount } from "./report.js";

const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

interface EngineFigure {
  checksPerSecond: number;
  checks: number;
  seconds: number;
  /** CPU time over wall time: how many cores the run kept busy. */
  cores: number;
  /** Record per input, from the warm-up pass. */
  records: Map<string, string>;
}

/** DNS from memory, batches of IN_FLIGHT awaited in turn: one core, no I/O. */
async function benchEngine(entries: readonly MixEntry[], resolver: DnsResolver): Promise<EngineFigure> {
  const deps = engineDeps(resolver);
  const inputs = entries.map((e) => e.input);
  const records = new Map<string, string>();
  await checkInBatches(inputs, deps, records); // warm-up, and the verdicts of the mix
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let checks = 0;
  while (performance.now() - started < SECONDS * 1000) {
    await checkInBatches(inputs, deps);
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

function report(loadBefore: number, mix: readonly MixEntry[], engine: EngineFigure): void {
  const mixLine = [...count(mix, (e) => e.kind)].map(([kind, n]) => `${kind} ${n}`).join(", ");
  const verdicts = [...count(engine.records.values(), (r) => (JSON.parse(r) as CheckRecord).reason)]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`)
    .join(", ");
  const notes = [
    `\nmix: ${mix.length} distinct domains (seed ${MIX_SEED}) — ${mixLine}`,
    `inputs: ${MIX_INPUTS}`,
    `verdicts of the mix: ${verdicts}`,
    `\nengine: ${formatCount(engine.checks)} checks in ${engine.seconds.toFixed(1)} s after a warm-up pass; parse + checkDomain + forAddress,` +
      ` batches of ${IN_FLIGHT} awaited in turn; ${engine.cores.toFixed(2)} cores busy (CPU time / wall time).` +
      " DNS from the in-memory test resolver (harness/memory-resolver.ts: each query counted, each (type, name)" +
      " resolved against the zones once, in the warm-up pass, then answered from a map as from a DNS cache);" +
      ` domain age not looked up. ${(1e6 / engine.checksPerSecond).toFixed(1)} µs per check.`,
  ];
  finish({
    title: "mailrisk engine benchmark",
    script: "bench:engine",
    loadBefore,
    rows: [
      [
        "engine, in-memory DNS, one core",
        `${formatCount(engine.checksPerSecond)} checks/s`,
        "≥ 50,000/s",
        engine.checksPerSecond >= 50_000,
      ],
    ],
    knobs: { BENCH_DOMAINS: DOMAINS, BENCH_SECONDS: SECONDS },
    notes,
  });
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const { entries, fixture } = domainMix(DOMAINS);
  const engine = await benchEngine(entries, new MemoryResolver(new Zones(fixture), { log: "total" }));
  report(loadBefore, entries, engine);
}

await main();
