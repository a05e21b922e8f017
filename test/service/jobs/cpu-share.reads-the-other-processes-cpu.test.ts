/**
 * The machine as `CpuShare` reads it (docs/jobs.md "Headroom"): the CPU the other
 * processes use, in cores, is every core's busy time less this process's own. A child
 * that spins counts; this process's own spin does not (else a job would bound itself for
 * its own work). Bounds only, which a loaded machine keeps: another process's CPU can
 * only add to the others', and the others can use no more than the cores this one leaves.
 * (On a machine busy with other work the two spins get little CPU, and the bounds say less.)
 *
 * @room shared: no bound on time.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { machineReader } from "../../../src/service/jobs/cpu-share.js";

const SPIN_MS = 400;
/** Rounding of the two clocks (ticks of 10 ms over a few hundred ms) and the work between the readings. */
const SLACK_CORES = 0.15;

describe("machineReader", () => {
  it("counts another process's CPU and not this one's", async () => {
    const read = machineReader();
    const ownBefore = process.cpuUsage();
    const started = performance.now();
    const until = started + SPIN_MS;
    while (performance.now() < until) {}
    const own = process.cpuUsage(ownBefore);
    const alone = read();
    const ownCores = (own.user + own.system) / 1000 / (performance.now() - started);
    expect(alone.othersCores).toBeGreaterThanOrEqual(0);
    expect(alone.othersCores).toBeLessThanOrEqual(alone.cores - ownCores + SLACK_CORES);

    // A child that spins and says how much CPU it had: at least that counts as the others'.
    const child = spawn(
      process.execPath,
      [
        "-e",
        `const u = Date.now() + ${SPIN_MS}; while (Date.now() < u) {} const c = process.cpuUsage(); console.log(c.user + c.system);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    read();
    const childStarted = performance.now();
    let printed = "";
    child.stdout.on("data", (chunk: Buffer) => {
      printed += chunk;
    });
    await once(child, "exit");
    const withChild = read();
    const childCores = Number(printed) / 1000 / (performance.now() - childStarted);
    expect(withChild.othersCores).toBeGreaterThanOrEqual(childCores - SLACK_CORES);
    expect(withChild.othersCores).toBeLessThanOrEqual(withChild.cores + SLACK_CORES);
  });
});
