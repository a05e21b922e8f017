/**
 * The share of a core list jobs may take (docs/jobs.md "Headroom"): while the machine has
 * no core to spare for this process, the runner keeps the event loop's utilization (its
 * busy time, the API's requests included) under JOB_LOOP_SHARE of the last WINDOW_MS or
 * so, so that another instance's job cannot take the CPU this one's requests need. On a
 * machine with a core to spare the jobs run at full speed. The machine is read from the
 * CPU times of every core less this process's own, so the decision does not depend on
 * how fast the job itself goes.
 */
import { availableParallelism, cpus } from "node:os";
import type { EventLoopUtilization } from "node:perf_hooks";

/** The share of one core the event loop may be busy while the jobs run on a contended machine. */
export const JOB_LOOP_SHARE = 0.4;
/** How often the utilization's window moves on; the window spans one to two of these. */
const STEP_MS = 100;
/** Cores the other processes must leave free (one for this process, half for bursts) for the jobs to run unbounded. */
const SPARE_CORES = 1.5;
/** The others' CPU, in cores, under which a machine of fewer cores than that is quiet all the same. */
const QUIET_OTHERS_CORES = 0.5;
/** How long the bound holds after the machine was last seen contended. */
const HOLD_MS = 1000;
/** The longest a job waits at once for the loop's share to fall. */
const LONGEST_WAIT_MS = STEP_MS;

/** Cores of CPU time the machine's other processes used since the last reading, and the cores there are. */
export interface MachineReading {
  othersCores: number;
  cores: number;
}

/** Reads the CPU time of every core (os.cpus()) and this process's own, as cores used by the others since the last call. */
export function machineReader(): () => MachineReading {
  const busyMs = () =>
    cpus().reduce((sum, { times }) => sum + times.user + times.nice + times.sys + times.irq, 0);
  let last = { at: performance.now(), busy: busyMs(), own: process.cpuUsage() };
  return () => {
    const now = { at: performance.now(), busy: busyMs(), own: process.cpuUsage() };
    const own = process.cpuUsage(last.own);
    const elapsedMs = Math.max(1, now.at - last.at);
    const othersMs = Math.max(0, now.busy - last.busy - (own.user + own.system) / 1000);
    last = now;
    return { othersCores: othersMs / elapsedMs, cores: availableParallelism() };
  };
}

interface Sample {
  at: number;
  loop: EventLoopUtilization;
}

export interface CpuShareOptions {
  /** The share of a core the loop may be busy while the machine is contended; default JOB_LOOP_SHARE. */
  share?: number;
  /** The machine's reading since the last call; default machineReader(). */
  machine?: () => MachineReading;
}

export class CpuShare {
  private readonly share: number;
  private readonly machine: () => MachineReading;
  /** The start of the window, and its newest step. */
  private base: Sample;
  private newest: Sample;
  private boundUntil = 0;
  /** The wait of every check held back, shared. */
  private waiting: Promise<void> | undefined;

  constructor(options: CpuShareOptions = {}) {
    this.share = options.share ?? JOB_LOOP_SHARE;
    this.machine = options.machine ?? machineReader();
    this.base = this.newest = { at: performance.now(), loop: performance.eventLoopUtilization() };
  }

  /** Whether the jobs must wait: the machine is contended and the loop has been busy over the share of the window. */
  over(): boolean {
    return this.excessMs() > 0;
  }

  /** Resolves once the loop's share of the window would be back under the bound (or LONGEST_WAIT_MS at most). */
  whenUnder(): Promise<void> {
    const excess = this.excessMs();
    if (excess <= 0) return Promise.resolve();
    this.waiting ??= new Promise<void>((resolve) =>
      setTimeout(
        () => {
          this.waiting = undefined;
          resolve();
        },
        Math.min(LONGEST_WAIT_MS, Math.ceil(excess)),
      ),
    );
    return this.waiting;
  }

  /** How long the loop would have to stay idle to be within the share of the window (≤ 0: it is). */
  private excessMs(): number {
    const now = performance.now();
    if (now - this.newest.at >= STEP_MS) this.step(now);
    if (now >= this.boundUntil) return 0;
    const { active } = performance.eventLoopUtilization(this.base.loop);
    return active / this.share - (now - this.base.at);
  }

  /**
   * Moves the window on by a step and reads the machine. A step that came late keeps what
   * it spans, so a long stretch of work (a batch written) is made up for by the waits after it.
   */
  private step(now: number): void {
    this.base = this.newest;
    this.newest = { at: now, loop: performance.eventLoopUtilization() };
    const { othersCores, cores } = this.machine();
    if (othersCores > Math.max(cores - SPARE_CORES, QUIET_OTHERS_CORES)) this.boundUntil = now + HOLD_MS;
  }
}
