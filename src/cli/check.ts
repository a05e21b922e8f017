/**
 * `mailrisk check` (docs/api.md §9, README "Clean a list"): checks inputs given as
 * arguments, one per line from stdin (`-`), or the address column of a CSV (`--csv`).
 * Inputs are read as they arrive and checked with bounded concurrency
 * (src/service/check-many.ts); each result is written in input order as soon as it and
 * the ones before it are ready, and carries its input as given. A blank line is an
 * input too (a problem). Output: a table, JSON Lines (`--json`: the full record or the
 * §5 problem object, each with `input` first), or the CSV with result columns.
 * `--only block|allow` keeps those results. Progress and a summary go to stderr when it
 * is a terminal, or with `--progress`. A reader that goes away (`| head`) ends the run
 * quietly. Exit code 0 when every input was checked, 1 when any was rejected (or the
 * CSV could not be read), 2 on usage errors.
 */
import { createReadStream, fstatSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { type Checked, type CheckOutcome, checkMany, outcomeBody } from "../service/check-many.js";
import { createChecker } from "../service/create-checker.js";
import type { Store } from "../store/types.js";
import { type ParsedArguments, parseArguments, usageError, wholeNumber } from "./arguments.js";
import { CsvError, csvWriter, findColumn, readCsv } from "./check-csv.js";
import type { CliContext } from "./context.js";
import { Output } from "./output.js";
import { Progress, verdictOf } from "./progress.js";
import { formatRow } from "./table.js";
import { withStore } from "./with-store.js";

const USAGE = `usage: mailrisk check <email-or-domain|->… [--json] [--only block|allow] [--concurrency N] [--progress]
       mailrisk check --csv [FILE|-] [--column NAME|NUMBER] [--delimiter C] [--only block|allow] [--concurrency N] [--progress]`;

const OPTIONS = {
  json: { type: "boolean" },
  csv: { type: "boolean" },
  column: { type: "string" },
  delimiter: { type: "string" },
  only: { type: "string" },
  concurrency: { type: "string" },
  progress: { type: "boolean" },
} as const;

type Values = ParsedArguments<{ options: typeof OPTIONS; allowPositionals: true }>["values"];

const COLUMNS = ["input", "valid", "block", "risk", "reason", "mx_host", "provider"];
/** Table columns are padded to these widths (a longer cell pushes its row's later cells right). */
const WIDTHS = [32, 5, 5, 4, 24, 32, 0];

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
  delimiter: string;
}

function settings(values: Values, ctx: CliContext): Settings | string {
  const concurrency = wholeNumber(values.concurrency ?? "16");
  if (concurrency === undefined || concurrency < 1 || concurrency > 1024) {
    return "--concurrency must be a whole number from 1 to 1024";
  }
  if (values.only !== undefined && values.only !== "block" && values.only !== "allow") {
    return "--only takes block or allow";
  }
  if (values.json && values.csv) return "--json and --csv exclude each other";
  if (!values.csv && (values.column !== undefined || values.delimiter !== undefined)) {
    return "--column and --delimiter go with --csv";
  }
  const delimiter =
    values.delimiter === "tab" || values.delimiter === "\\t" ? "\t" : (values.delimiter ?? ",");
  if ([...delimiter].length !== 1 || delimiter === '"' || delimiter === "\r" || delimiter === "\n") {
    return "--delimiter takes one character (or tab), not a quote or a line break";
  }
  const stderr = ctx.stderr as NodeJS.WritableStream & { isTTY?: boolean };
  return {
    format: values.csv ? "csv" : values.json ? "json" : "table",
    only: values.only as Settings["only"],
    concurrency,
    progress: values.progress === true || stderr.isTTY === true,
    delimiter,
  };
}

/** Whether `--only` keeps an outcome: block keeps blocked and invalid inputs, allow the rest. */
function kept(outcome: CheckOutcome, only: Settings["only"]): boolean {
  if (only === undefined) return true;
  return (verdictOf(outcome) === "allow") === (only === "allow");
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
async function writeAll<T>(
  checked: AsyncIterable<Checked<T>>,
  state: RunState,
  only: Settings["only"],
  line: (entry: Checked<T>) => string,
  bytesRead: (entry: Checked<T>) => number,
): Promise<void> {
  for await (const entry of checked) {
    if ("problem" in entry.outcome) state.rejected++;
    if (kept(entry.outcome, only)) {
      await state.output.write(line(entry));
      state.written++;
    }
    state.progress?.tick(entry.outcome, bytesRead(entry));
    if (state.output.closed) break;
  }
}

function checkerFor(store: Store, ctx: CliContext, concurrency: number) {
  // A list is being cleaned: today's verdict for every input, never a stale one.
  return createChecker({ config: ctx.config, store, lookupConcurrency: concurrency, serveStale: false });
}

/** Ends a run: the progress summary unless the output closed, the exit code. */
function finish(ctx: CliContext, state: RunState): number {
  state.output.release();
  state.progress?.stop(state.output.closed ? false : { written: state.written });
  const failure = state.output.failure;
  if (failure) {
    ctx.stderr.write(`mailrisk: cannot write the output: ${failure.message}\n`);
    return 1;
  }
  if (state.output.closed) return 0;
  return state.rejected > 0 ? 1 : 0;
}

async function runList(ctx: CliContext, positionals: string[], options: Settings): Promise<number> {
  if (positionals.length === 0) return usageError(ctx, "check needs inputs, or - for stdin", USAGE);
  const fromStdin = positionals.includes("-");
  const reader = fromStdin
    ? createInterface({ input: ctx.stdin, crlfDelay: Number.POSITIVE_INFINITY })
    : undefined;
  // Taken at once: readline drops the lines that arrive before anyone iterates.
  const lines = reader?.[Symbol.asyncIterator]();
  const read = { bytes: 0 };
  try {
    return await withStore(ctx, async (store) => {
      const checker = checkerFor(store, ctx, options.concurrency);
      const state: RunState = {
        output: new Output(ctx.stdout),
        progress: options.progress
          ? new Progress({ stream: ctx.stderr, totalBytes: fromStdin ? sizeOf(ctx.stdin) : undefined })
          : undefined,
        rejected: 0,
        written: 0,
      };
      let count = 0;
      const inputs = (async function* () {
        for await (const input of listInputs(positionals, lines, read)) {
          count++;
          yield input;
        }
      })();
      try {
        if (options.format === "table") await state.output.write(`${formatRow(COLUMNS, WIDTHS)}\n`);
        await writeAll(
          checkMany(inputs, { checker, concurrency: options.concurrency }),
          state,
          options.only,
          ({ outcome }) =>
            options.format === "json"
              ? `${JSON.stringify(outcomeBody(outcome))}\n`
              : `${formatRow(tableRow(outcome), WIDTHS)}\n`,
          () => read.bytes,
        );
      } finally {
        await checker.drain();
      }
      if (count === 0 && !state.output.closed) {
        state.progress?.stop(false);
        return usageError(ctx, "stdin held no input for -", USAGE);
      }
      return finish(ctx, state);
    });
  } finally {
    reader?.close();
  }
}

async function runCsv(ctx: CliContext, positionals: string[], options: Settings, column: string | undefined) {
  if (positionals.length > 1) return usageError(ctx, "--csv reads one file (or - for stdin)", USAGE);
  const path = positionals[0] ?? "-";
  let stream = ctx.stdin;
  let totalBytes = sizeOf(ctx.stdin);
  if (path !== "-") {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat?.isFile()) return usageError(ctx, `${path} is not a readable file`, USAGE);
    stream = createReadStream(path);
    totalBytes = stat.size;
  }
  let csv: Awaited<ReturnType<typeof readCsv>>;
  try {
    csv = await readCsv(stream, options.delimiter);
  } catch (error) {
    ctx.stderr.write(`mailrisk: the CSV cannot be read: ${(error as Error).message}\n`);
    return 1;
  }
  const index = findColumn(csv.header, column);
  if (typeof index === "string") {
    await csv.rows.return(undefined);
    return usageError(ctx, index, USAGE);
  }
  return withStore(ctx, async (store) => {
    const checker = checkerFor(store, ctx, options.concurrency);
    const write = csvWriter(csv.layout, options.delimiter);
    const state: RunState = {
      output: new Output(ctx.stdout),
      progress: options.progress ? new Progress({ stream: ctx.stderr, totalBytes }) : undefined,
      rejected: 0,
      written: 0,
    };
    try {
      await state.output.write(write.header(csv.header));
      await writeAll(
        checkMany(csv.rows, {
          checker,
          concurrency: options.concurrency,
          inputOf: (row) => row.cells[index] ?? "",
        }),
        state,
        options.only,
        ({ item, outcome }) => write.row(item.cells, outcome),
        ({ item }) => item.bytes,
      );
    } catch (error) {
      if (!(error instanceof CsvError)) throw error;
      state.output.release();
      state.progress?.stop(false);
      ctx.stderr.write(`mailrisk: the CSV cannot be read: ${error.message}\n`);
      return 1;
    } finally {
      await checker.drain();
    }
    return finish(ctx, state);
  });
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, allowPositionals: true, options: OPTIONS });
  if (!result.ok) return usageError(ctx, result.message, USAGE);
  const { values, positionals } = result.parsed;
  const options = settings(values, ctx);
  if (typeof options === "string") return usageError(ctx, options, USAGE);
  if (positionals.filter((positional) => positional === "-").length > 1) {
    return usageError(ctx, "- (stdin) may be given once", USAGE);
  }
  return options.format === "csv"
    ? runCsv(ctx, positionals, options, values.column)
    : runList(ctx, positionals, options);
}
