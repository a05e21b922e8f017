/** What every benchmark prints: a header with the machine, a figures table, and the command to reproduce (`finish`). */
import { describeMachine } from "./machine.js";

/** One row of the figures table; `ok` null for a row without a target. */
export type FigureRow = [figure: string, measured: string, target: string, ok: boolean | null];

/** The value at percentile `p` (0–100) of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

export function formatMegabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

/** How many items have each key. */
export function count<T>(items: Iterable<T>, key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** `knobs` as `NAME=value`, then the npm script: the command line that repeats the run. */
function reproduce(script: string, knobs: Record<string, number | string> = {}): string {
  return [...Object.entries(knobs).map(([name, value]) => `${name}=${value}`), `npm run ${script}`].join(" ");
}

/** Starts the one line per table that `npm run bench` (bench/all.ts) collects: the marker, then JSON. */
export const FIGURES_LINE_MARKER = "mailrisk-bench-figures ";

export interface FiguresLine {
  title: string;
  script: string;
  rows: readonly FigureRow[];
}

/** The machine-readable copy of a figures table, as one line after it. */
function printFiguresLine(title: string, script: string, rows: readonly FigureRow[]): void {
  console.log(`${FIGURES_LINE_MARKER}${JSON.stringify({ title, script, rows } satisfies FiguresLine)}`);
}

/** The title with the npm script, the machine line (load average `loadBefore` at the start), the table, its machine-readable line. */
function printFigures(title: string, script: string, loadBefore: number, rows: readonly FigureRow[]): void {
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd([40, 20, 12, 7][i] ?? 0)).join(" | ")} |`;
  console.log(`\n${title} — \`npm run ${script}\``);
  console.log(`${describeMachine(loadBefore)}\n`);
  console.log(line(["figure", "measured", "target", "verdict"]));
  console.log(line(["---", "---", "---", "---"]));
  for (const [name, measured, target, ok] of rows) {
    console.log(line([name, measured, target, ok === null ? "" : ok ? "pass" : "MISS"]));
  }
  printFiguresLine(title, script, rows);
}

/** How a benchmark ends: its figures and the run's knobs. */
export interface Ending {
  /** The table's title; the npm script follows it. */
  title: string;
  /** The npm script, e.g. "bench:engine". */
  script: string;
  /** The 1-minute load average when the benchmark started, for the machine line. */
  loadBefore: number;
  rows: readonly FigureRow[];
  /** The environment variables that set the run's size, for the `reproduce:` line. */
  knobs?: Record<string, number | string>;
  /** Lines printed after the table, before `reproduce:` (what was measured and how); each as given, to `console.log`. */
  notes?: readonly string[];
  /**
   * The script printed its own table (other columns, with the title and machine line) just
   * before: print only the machine-readable line of `rows` that `npm run bench` collects.
   */
  ownTable?: boolean;
}

/**
 * The end of every benchmark: the figures table with the machine line and its
 * machine-readable line (bench/all.ts collects it), the notes, the `reproduce:` command,
 * and exit code 1 when a row misses its target. True when none does.
 */
export function finish({
  title,
  script,
  loadBefore,
  rows,
  knobs = {},
  notes = [],
  ownTable = false,
}: Ending): boolean {
  if (ownTable) printFiguresLine(title, script, rows);
  else printFigures(title, script, loadBefore, rows);
  for (const note of notes) console.log(note);
  console.log(`\nreproduce: ${reproduce(script, knobs)}`);
  const met = rows.every(([, , , ok]) => ok !== false);
  if (!met) process.exitCode = 1;
  return met;
}
