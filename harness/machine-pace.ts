/**
 * A bound on time as a ratio to a baseline of the same run. A test that holds a
 * wall-clock bound writes it for a quiet machine and stretches it by the machine's pace:
 * how many times longer than its own CPU time a fixed piece of work takes now (1 on a
 * machine with a core to spare; 2 when twice as many threads want a core as there are
 * cores). The pace is read when the timed part starts and again when its bound is checked,
 * and the slower of the two counts, so a test keeps its meaning in the suite's shared
 * rooms and on a loaded machine (test/projects.ts).
 */

/** Work of a few milliseconds of one core: long enough for the CPU clock, short enough to repeat. */
const SAMPLE_ITERATIONS = 2_000_000;
/** Samples per reading; their median is the reading. */
const SAMPLES = 7;

function sampleOnce(): number {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let sink = 0;
  for (let i = 0; i < SAMPLE_ITERATIONS; i++) sink += Math.sqrt(i);
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  // Keep the loop from being optimised away.
  if (sink < 0) throw new Error("unreachable");
  return (wallMs * 1000) / Math.max(1, cpu.user + cpu.system);
}

/** How many times slower than a quiet machine this one runs now (≥ 1): the median of a few samples. */
export function machinePace(): number {
  const samples = Array.from({ length: SAMPLES }, sampleOnce).sort((a, b) => a - b);
  return Math.max(1, samples[Math.floor(SAMPLES / 2)] as number);
}

/** A timed part's pace: read at its start, and again when a bound is asked for. */
export interface Pace {
  /** The pace at the start. */
  readonly atStart: number;
  /** `quietMs`, a bound written for a quiet machine, times the slower of the start's pace and now's. */
  bound(quietMs: number): number;
}

/** Starts a timed part: reads the machine's pace now. */
export function startPace(): Pace {
  const atStart = machinePace();
  return {
    atStart,
    bound: (quietMs) => quietMs * Math.max(atStart, machinePace()),
  };
}
