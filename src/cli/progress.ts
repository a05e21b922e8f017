/**
 * Progress of `mailrisk check` on stderr (docs/api.md "Running it"): a cli-progress bar with the
 * count, the rate, the ETA and the running tally of block / allow / invalid, and a
 * summary at the end. Shown when stderr is a terminal, or with `--progress` (then as a
 * line every few seconds, for a log file); otherwise nothing is written.
 *
 * The bar measures bytes of the input read, so it has an ETA whenever the input's size
 * is known (a file, or stdin redirected from one); from a pipe it shows the count and
 * the rate only.
 */

import cliProgress from "cli-progress";
import { type CheckOutcome, type Verdict, verdictOf } from "../service/checking/check-many.js";
import { formatCount } from "./table.js";
import { rawStream } from "./terminal-text.js";

type Tally = Record<Verdict, number>;

export interface ProgressOptions {
  stream: NodeJS.WritableStream & { isTTY?: boolean };
  /** Bytes the input holds, when known. */
  totalBytes: number | undefined;
  clock?: () => number;
}

const WITH_SIZE =
  "{bar} {percentage}% | {count} checked | {rate}/s | ETA {eta_formatted} | block {block}  allow {allow}  invalid {invalid}";
const WITHOUT_SIZE = "{count} checked | {rate}/s | block {block}  allow {allow}  invalid {invalid}";

export class Progress {
  readonly tally: Tally = { block: 0, allow: 0, invalid: 0 };
  private count = 0;
  private readonly started: number;
  private readonly clock: () => number;
  private readonly bar: cliProgress.SingleBar;
  private stopped = false;

  constructor(private readonly options: ProgressOptions) {
    this.clock = options.clock ?? (() => performance.now());
    this.started = this.clock();
    const terminal = options.stream.isTTY === true;
    this.bar = new cliProgress.SingleBar({
      // The bar draws with escape sequences, which the terminal stream would show as text.
      stream: rawStream(options.stream),
      format: options.totalBytes === undefined ? WITHOUT_SIZE : WITH_SIZE,
      barsize: 24,
      fps: 10,
      etaBuffer: 200,
      hideCursor: terminal,
      gracefulExit: terminal,
      noTTYOutput: !terminal,
      notTTYSchedule: 2000,
      barCompleteChar: "█",
      barIncompleteChar: "░",
    });
    this.bar.start(options.totalBytes ?? 0, 0, this.payload());
  }

  private rate(): number {
    const seconds = (this.clock() - this.started) / 1000;
    return seconds > 0 ? this.count / seconds : 0;
  }

  private payload() {
    return {
      count: formatCount(this.count),
      rate: formatCount(this.rate()),
      block: formatCount(this.tally.block),
      allow: formatCount(this.tally.allow),
      invalid: formatCount(this.tally.invalid),
    };
  }

  /** One outcome written; `bytesRead` is how far into the input it came from. */
  tick(outcome: CheckOutcome, bytesRead: number): void {
    this.count++;
    this.tally[verdictOf(outcome)]++;
    this.bar.update(this.options.totalBytes === undefined ? 0 : bytesRead, this.payload());
  }

  /** Stops the bar; with `summary`, prints the totals per verdict and the time. */
  stop(summary: { written?: number } | false): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.options.totalBytes !== undefined && summary !== false) {
      this.bar.update(this.options.totalBytes, this.payload());
    }
    this.bar.stop();
    if (summary === false) return;
    const seconds = (this.clock() - this.started) / 1000;
    const { block, allow, invalid } = this.tally;
    const written =
      summary.written !== undefined && summary.written !== this.count
        ? `; ${formatCount(summary.written)} written (--only)`
        : "";
    this.options.stream.write(
      `mailrisk: checked ${formatCount(this.count)} inputs in ${seconds.toFixed(1)} s (${formatCount(this.rate())}/s):` +
        ` block ${formatCount(block)}, allow ${formatCount(allow)}, invalid ${formatCount(invalid)}${written}\n`,
    );
  }
}
