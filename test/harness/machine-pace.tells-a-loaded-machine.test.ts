/**
 * The machine's pace (harness/machine-pace.ts) reads a machine whose cores are all taken
 * as slower than it was a moment before. `@room apart`: the two readings compare the
 * machine's state, which other files' work beside them would move on its own (seen: a
 * "quiet" reading of 1.61 in the shared rooms, and a loaded one no higher), and the
 * spinners would slow those files in turn.
 */
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { machinePace, startPace } from "../../harness/machine-pace.js";

const spinners: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const spinner of spinners.splice(0)) spinner.kill("SIGKILL");
});

describe("machinePace", () => {
  it("is at least 1 and stretches a bound by the slower of two readings", () => {
    const pace = startPace();
    expect(pace.atStart).toBeGreaterThanOrEqual(1);
    expect(pace.bound(100)).toBeGreaterThanOrEqual(100 * pace.atStart);
  });

  it("reads a machine whose cores are all taken twice over as slower", async () => {
    const quiet = machinePace();
    // Twice as many busy processes as cores, beside this one.
    // Each says so once it spins: a node process takes a while to start on a loaded machine.
    const spinning: Promise<void>[] = [];
    for (let i = 0; i < availableParallelism() * 2; i++) {
      const spinner = spawn(process.execPath, ["-e", 'process.stdout.write("spinning\\n"); for (;;) {}'], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      spinners.push(spinner);
      spinning.push(new Promise((resolve) => spinner.stdout?.once("data", () => resolve())));
    }
    await Promise.all(spinning);
    const loaded = machinePace();
    expect(loaded).toBeGreaterThan(1.5);
    expect(loaded).toBeGreaterThan(quiet);
  });
});
