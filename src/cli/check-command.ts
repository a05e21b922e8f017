/**
 * `mailrisk check` (docs/cleaning.md; its forms, outputs and exit codes in commands.ts): inputs from
 * the arguments, stdin's lines (`-`) or a CSV's address column (`--csv`), read as they arrive and
 * checked with bounded concurrency (src/service/checking/check-many.ts); each result is written in
 * input order as soon as it and the ones before it are ready. A CSV file is read through once before
 * any output, so one that cannot be read writes nothing.
 */
import { createReadStream, fstatSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import {
  type Checked,
  type CheckOutcome,
  checkMany,
  keptBy,
  outcomeBody,
} from "../service/checking/check-many.js";
import { createChecker } from "../service/checking/create-checker.js";
import { cleanCsv } from "../service/csv/clean-csv.js";
import { type CsvAdvice, CsvError, csvErrorText } from "../service/csv/csv-error.js";
import { CSV_ENCODINGS, type CsvEncoding } from "../service/csv/decode.js";
import { findColumn } from "../service/csv/find-column.js";
import { type CsvInput, type CsvOptions, readCsv } from "../service/csv/read-csv.js";
import { commandRunner, EXIT_USAGE, failed, type Given, usageError, wholeNumber } from "./arguments.js";
import type { CliContext } from "./context.js";
import { Output } from "./output.js";
import { Progress } from "./progress.js";
import { formatRow, formatStreamedRow, formatTable } from "./table.js";
import { rawStream } from "./terminal-text.js";
import { withStore } from "./with-store.js";

/** A CSV problem's advice in the command's words. */
function cliAdvice(advice: CsvAdvice): string {
  if (advice.kind === "column") return "name it with --column NAME|NUMBER";
  if (advice.kind === "encoding")
    return "if the file is in another encoding, name it with --encoding latin1, --encoding windows-1252 (Excel on Windows) or --encoding utf-16";
  return `say so with --delimiter '${advice.delimiter === "\t" ? "tab" : advice.delimiter}'`;
}

const COLUMNS = ["input", "valid", "block", "risk", "reason", "mx_host", "provider"];
/** The narrowest table columns; a streamed table (stdin) keeps these widths and cuts a wider cell. */
const WIDTHS = [32, 5, 5, 4, 24, 40, 0];

function tableRow(outcome: CheckOutcome): string[] {
  if ("problem" in outcome) return [outcome.input, "-", "-", "-", `error: ${outcome.problem.detail}`, "", ""];
  const r = outcome.record;
  return [
    outcome.input,
    String(r.valid),
    String(r.block),
    String(r.risk),
    r.reason,
    r.mx_host,
    r.email_provider,
  ];
}

/** Bytes `stream` will deliver when it reads a regular file (stdin redirected from one); else undefined. */
function sizeOf(stream: NodeJS.ReadableStream): number | undefined {
  const fd = (stream as { fd?: unknown }).fd;
  if (typeof fd !== "number") return undefined;
  try {
    const stat = fstatSync(fd);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

interface Settings {
  format: "table" | "json" | "csv";
  only: "block" | "allow" | undefined;
  concurrency: number;
  progress: boolean;
  csv: CsvOptions;
  /** `--raw`: cells that would start a formula are written as read. */
  raw: boolean;
}

function settings(given: Given, ctx: CliContext): Settings | string {
  const only = given.text("only");
  const csv = given.flag("csv");
  const concurrency = wholeNumber(given.text("concurrency") ?? "16");
  if (concurrency === undefined || concurrency < 1 || concurrency > 1024) {
    return "--concurrency must be a whole number from 1 to 1024";
  }
  if (only !== undefined && only !== "block" && only !== "allow") return "--only takes block or allow";
  if (given.flag("json") && csv) return "--json and --csv exclude each other";
  for (const option of ["column", "delimiter", "encoding"]) {
    if (!csv && given.text(option) !== undefined) return `--${option} goes with --csv`;
  }
  if (!csv && given.flag("raw")) return "--raw goes with --csv";
  const text = given.text("delimiter");
  const delimiter = text === "tab" || text === "\\t" ? "\t" : text;
  if (
    delimiter !== undefined &&
    ([...delimiter].length !== 1 || delimiter === '"' || delimiter === "\r" || delimiter === "\n")
  ) {
    return `--delimiter takes one character (or tab), not a quote or a line break; got ${JSON.stringify(delimiter)}`;
  }
  const encoding = given.text("encoding")?.toLowerCase();
  if (encoding !== undefined && !Object.hasOwn(CSV_ENCODINGS, encoding)) {
    return `--encoding takes utf-8, latin1, windows-1252 or utf-16; got "${given.text("encoding")}"`;
  }
  const stderr = ctx.stderr as NodeJS.WritableStream & { isTTY?: boolean };
  return {
    format: csv ? "csv" : given.flag("json") ? "json" : "table",
    only,
    concurrency,
    progress: given.flag("progress") || stderr.isTTY === true,
    raw: given.flag("raw"),
    csv: {
      limits: { maxColumns: ctx.config.csvMaxColumns, maxRecordBytes: ctx.config.csvMaxRecordBytes },
      ...(delimiter !== undefined ? { delimiter } : {}),
      ...(encoding !== undefined ? { encoding: encoding as CsvEncoding } : {}),
    },
  };
}

/** The list inputs in order: arguments, with `-` replaced by stdin's lines; counts stdin's bytes. */
async function* listInputs(
  positionals: string[],
  lines: AsyncIterator<string> | undefined,
  read: { bytes: number },
) {
  for (const positional of positionals) {
    if (positional !== "-" || lines === undefined) {
      yield positional;
      continue;
    }
    for (let line = await lines.next(); !line.done; line = await lines.next()) {
      read.bytes += Buffer.byteLength(line.value) + 1;
      yield line.value;
    }
  }
}

interface RunState {
  output: Output;
  progress: Progress | undefined;
  rejected: number;
  written: number;
}

/** Writes each outcome in order until the inputs end or the output closes. */
async function writeAll<Entry extends Checked<unknown>>(
  checked: AsyncIterable<Entry>,
  state: RunState,
  only: Settings["only"],
  line: (entry: Entry) => string,
  bytesRead: (entry: Entry) => number,
): Promise<void> {
  for await (const entry of checked) {
    if ("problem" in entry.outcome) state.rejected++;
    if (keptBy(only, entry.outcome)) {
      await state.output.write(line(entry));
      state.written++;
    }
    state.progress?.tick(entry.outcome, bytesRead(entry));
    if (state.output.closed) break;
  }
}

/** Ends a run: the progress summary unless the output closed, the exit code. */
function finish(ctx: CliContext, state: RunState): number {
  state.output.release();
  state.progress?.stop(state.output.closed ? false : { written: state.written });
  const failure = state.output.failure;
  if (failure) return failed(ctx, `cannot write the output: ${failure.message}`);
  if (state.output.closed) return 0;
  return state.rejected > 0 ? 1 : 0;
}

/**
 * A run on the database: `work` writes the outcomes of its checker to `stream`, with progress on
 * stderr when asked for (`totalBytes`: the input's, when known); `work`'s exit code, else the run's.
 */
function checkRun(
  ctx: CliContext,
  options: Settings,
  stream: NodeJS.WritableStream,
  totalBytes: number | undefined,
  work: (checker: ReturnType<typeof createChecker>, state: RunState) => Promise<number | undefined>,
): Promise<number> {
  return withStore(ctx, async (store) => {
    // A list is being cleaned: today's verdict for every input, never a stale one.
    const checker = createChecker({
      config: ctx.config,
      store,
      lookupConcurrency: options.concurrency,
      serveStale: false,
      // A resolver that fails makes every answer a DNS failure: said on stderr, whatever else is quiet.
      onResolverState: (report, previous, message) => {
        if (report.state !== "ok" || previous !== undefined) ctx.stderr.write(`mailrisk: ${message}\n`);
      },
      onPolicyDiffers: (message) => ctx.stderr.write(`mailrisk: ${message}\n`),
    });
    const progress = options.progress ? new Progress({ stream: ctx.stderr, totalBytes }) : undefined;
    const state: RunState = { output: new Output(stream), progress, rejected: 0, written: 0 };
    let code: number | undefined;
    try {
      code = await work(checker, state);
    } finally {
      await checker.close();
    }
    return code ?? finish(ctx, state);
  });
}

async function runList(
  ctx: CliContext,
  { words: positionals, usage }: Given,
  options: Settings,
): Promise<number> {
  if (positionals.length === 0) return usageError(ctx, "check needs inputs, or - for stdin", usage);
  const fromStdin = positionals.includes("-");
  const reader = fromStdin
    ? createInterface({ input: ctx.stdin, crlfDelay: Number.POSITIVE_INFINITY })
    : undefined;
  // Taken at once: readline drops the lines that arrive before anyone iterates.
  const lines = reader?.[Symbol.asyncIterator]();
  const read = { bytes: 0 };
  try {
    return await checkRun(
      ctx,
      options,
      ctx.stdout,
      fromStdin ? sizeOf(ctx.stdin) : undefined,
      async (checker, state) => {
        let count = 0;
        const inputs = (async function* () {
          for await (const input of listInputs(positionals, lines, read)) {
            count++;
            yield input;
          }
        })();
        // Arguments alone make a table known in full, written fitted at the end; stdin's is streamed.
        const collected: string[][] | undefined = options.format === "table" && !fromStdin ? [] : undefined;
        // Whether an answer was a DNS failure: then the resolver's first report is awaited (below).
        let dnsFailed = false;
        const line = (outcome: CheckOutcome): string => {
          if ("record" in outcome && outcome.record.reason.startsWith("DNS ")) dnsFailed = true;
          if (options.format === "json") return `${JSON.stringify(outcomeBody(outcome))}\n`;
          if (collected) {
            collected.push(tableRow(outcome));
            return "";
          }
          return `${formatStreamedRow(tableRow(outcome), WIDTHS)}\n`;
        };
        if (options.format === "table" && !collected) {
          await state.output.write(`${formatRow(COLUMNS, WIDTHS)}\n`);
        }
        await writeAll(
          checkMany(inputs, { checker, concurrency: options.concurrency, testNames: ctx.config.testNames }),
          state,
          options.only,
          ({ outcome }) => line(outcome),
          () => read.bytes,
        );
        if (collected) await state.output.write(`${formatTable([COLUMNS, ...collected], WIDTHS)}\n`);
        // A DNS failure may be the resolver's: its first report says so on stderr, also when the
        // run ends before the canary's retries do.
        if (dnsFailed) await checker.resolverHealth?.state().catch(() => undefined);
        if (count > 0 || state.output.closed) return undefined;
        state.progress?.stop(false);
        return usageError(ctx, "stdin held no input for -", usage);
      },
    );
  } finally {
    reader?.close();
  }
}

/** A CSV that cannot be read stops the run: exit 2. */
function unreadable(ctx: CliContext, error: unknown, written?: number): number {
  if (!(error instanceof CsvError)) throw error;
  const after =
    written === undefined
      ? ""
      : `; the output stops after ${written} complete row${written === 1 ? "" : "s"}`;
  ctx.stderr.write(`mailrisk: ${csvErrorText(error, cliAdvice)}${after}\n`);
  return EXIT_USAGE;
}

/** Reads a CSV file through once, to refuse one that cannot be read before anything is written. */
async function readThrough(path: string, csv: CsvOptions): Promise<void> {
  const { rows } = await readCsv(createReadStream(path), csv);
  for await (const _ of rows);
}

/** What the run tells on stderr of how the CSV was read: a sniffed delimiter, an encoding other than UTF-8. */
function describeLayout(ctx: CliContext, { layout }: CsvInput): void {
  if (layout.sniffed) {
    const name = layout.delimiter === "\t" ? "tab" : JSON.stringify(layout.delimiter);
    ctx.stderr.write(
      `mailrisk: the CSV's delimiter is ${name} (sniffed from its first lines; --delimiter sets another)\n`,
    );
  }
  if (layout.encoding !== "utf-8") {
    ctx.stderr.write(`mailrisk: the CSV was read as ${layout.encoding}; the output is UTF-8\n`);
  }
}

async function runCsv(ctx: CliContext, given: Given, options: Settings) {
  const { words: positionals, usage } = given;
  if (positionals.length > 1) {
    return usageError(ctx, `--csv reads one file (or - for stdin), not ${positionals.length}`, usage);
  }
  const path = positionals[0] ?? "-";
  let stream = ctx.stdin;
  let totalBytes = sizeOf(ctx.stdin);
  if (path !== "-") {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat?.isFile()) return usageError(ctx, `${path} is not a readable file`, usage);
    try {
      await readThrough(path, options.csv);
    } catch (error) {
      return unreadable(ctx, error);
    }
    stream = createReadStream(path);
    totalBytes = stat.size;
  }
  let csv: CsvInput;
  try {
    csv = await readCsv(stream, options.csv);
  } catch (error) {
    return unreadable(ctx, error);
  }
  const index = findColumn(csv.header, given.text("column"));
  if (index instanceof CsvError) {
    csv.close();
    return usageError(ctx, csvErrorText(index, cliAdvice), usage);
  }
  describeLayout(ctx, csv);
  // CSV is data, written as read (docs/security.md, "Terminal output"): not terminal text.
  return checkRun(ctx, options, rawStream(ctx.stdout), totalBytes, async (checker, state) => {
    const cleaned = cleanCsv(csv, index, {
      checker,
      concurrency: options.concurrency,
      testNames: ctx.config.testNames,
      raw: options.raw,
    });
    try {
      await state.output.write(cleaned.header);
      await writeAll(
        cleaned.rows,
        state,
        options.only,
        ({ line }) => line,
        ({ item }) => item.bytes,
      );
    } catch (error) {
      state.output.release();
      state.progress?.stop(false);
      return unreadable(ctx, error, state.written);
    }
    return undefined;
  });
}

export const run = commandRunner("check", async (given, ctx) => {
  const options = settings(given, ctx);
  if (typeof options === "string") return usageError(ctx, options, given.usage);
  if (given.words.filter((word) => word === "-").length > 1) {
    return usageError(ctx, "- (stdin) may be given once", given.usage);
  }
  return options.format === "csv" ? runCsv(ctx, given, options) : runList(ctx, given, options);
});
