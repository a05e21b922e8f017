/** What every benchmark prints: a header with the machine, a figures table, and the command to reproduce. */
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
export function reproduce(script: string, knobs: Record<string, number | string> = {}): string {
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
export function printFiguresLine(title: string, script: string, rows: readonly FigureRow[]): void {
  console.log(`${FIGURES_LINE_MARKER}${JSON.stringify({ title, script, rows } satisfies FiguresLine)}`);
}

/** The title with the npm script, the machine line (load average `loadBefore` at the start), the table; true when no row misses. */
export function printFigures(
  title: string,
  script: string,
  loadBefore: number,
  rows: readonly FigureRow[],
): boolean {
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
  return rows.every(([, , , ok]) => ok !== false);
}
