/**
 * `mailrisk check <email-or-domain>… [--json]` (docs/api.md §9): `-` reads one input per line
 * from stdin. Inputs run concurrently (bounded); output keeps input order. With --json
 * every line is one full record, or a problem object for a bad input, and the run goes
 * on. Exit code 0 when every input was checked, 1 when any was rejected, 2 on usage errors.
 */
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import pLimit from "p-limit";
import { type InputProblem, parseInput } from "../core/input.js";
import type { CheckRecord } from "../core/record.js";
import { inputProblemDetails } from "../http/problems.js";
import { createChecker } from "../service/create-checker.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { withStore } from "./with-store.js";

const USAGE = "usage: mailrisk check <email-or-domain|->… [--json] [--concurrency N]";

type Outcome = { input: string; record: CheckRecord } | { input: string; problem: InputProblem };

async function readLines(stream: NodeJS.ReadableStream): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
    if (line.trim() !== "") lines.push(line.trim());
  }
  return lines;
}

const COLUMNS = ["input", "valid", "block", "risk", "reason", "mx_host", "provider"] as const;

function tableRow(outcome: Outcome): string[] {
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

export async function run(args: string[], ctx: CliContext): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{
      options: { json: { type: "boolean" }; concurrency: { type: "string" } };
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: "boolean" }, concurrency: { type: "string" } },
    });
  } catch (error) {
    ctx.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const concurrency = Number(parsed.values.concurrency ?? 16);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) {
    ctx.stderr.write(`--concurrency must be a whole number from 1 to 1024\n${USAGE}\n`);
    return 2;
  }
  const inputs: string[] = [];
  for (const positional of parsed.positionals) {
    if (positional === "-") inputs.push(...(await readLines(ctx.stdin)));
    else inputs.push(positional);
  }
  if (inputs.length === 0) {
    ctx.stderr.write(`${USAGE}\n`);
    return 2;
  }

  return withStore(ctx, async (store) => {
    // A list is being cleaned: today's verdict for every input, never a stale one.
    const checker = createChecker({
      config: ctx.config,
      store,
      lookupConcurrency: concurrency,
      serveStale: false,
    });
    const limit = pLimit(concurrency);
    const pending = inputs.map((input) =>
      limit(async (): Promise<Outcome> => {
        const result = parseInput(input);
        if (!result.ok) return { input, problem: result.problem };
        return { input, record: (await checker.check(result.input)).record };
      }),
    );
    let rejected = 0;
    const rows: string[][] = [[...COLUMNS]];
    for (const next of pending) {
      const outcome = await next;
      if ("problem" in outcome) rejected++;
      if (parsed.values.json) {
        const line = "problem" in outcome ? inputProblemDetails(outcome.problem) : outcome.record;
        ctx.stdout.write(`${JSON.stringify(line)}\n`);
      } else {
        rows.push(tableRow(outcome));
      }
    }
    if (!parsed.values.json) ctx.stdout.write(`${formatTable(rows)}\n`);
    await checker.drain();
    return rejected > 0 ? 1 : 0;
  });
}
