/**
 * What counting the traffic adds to a check (`npx tsx bench/traffic-count.ts`,
 * docs/benchmarks.md "Traffic counters"): the CPU time of `TrafficCounter.count()` for an
 * allowed answer (the surface's count) and a blocked one (its reason, domain and
 * provider too), 5 rounds of 5 million calls each, the median per call; beside it the
 * share of a cached `POST /v2/`'s server CPU on a quiet machine (about 27 µs, bench:http).
 */
import { loadavg } from "node:os";
import { sampleRecord } from "../harness/sample-record.js";
import { TrafficCounter } from "../src/service/checking/traffic-counter.js";
import { median } from "./report.js";

const CALLS = 5_000_000;
const ROUNDS = 5;
const REQUEST_NS = 27_000;

const answers = {
  allowed: sampleRecord({ block: false }),
  blocked: sampleRecord({
    block: true,
    reason: "Disposable",
    domain: "mailinator.com",
    disposable_provider: "mailinator.com",
  }),
};

console.log(`traffic counting, ${ROUNDS} rounds of ${CALLS} calls, load average ${loadavg()[0]?.toFixed(2)}`);
for (const [name, record] of Object.entries(answers)) {
  const counter = new TrafficCounter();
  const perCall: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) counter.count("api", record);
    const used = process.cpuUsage(started);
    perCall.push(((used.user + used.system) * 1000) / CALLS);
    counter.take();
  }
  const ns = median(perCall);
  console.log(
    `${name.padEnd(8)} ${ns.toFixed(1)} ns per check, ${((ns / REQUEST_NS) * 100).toFixed(2)} % of a cached request`,
  );
}
