/**
 * A list job's batch of outcomes as the store keeps it (docs/jobs.md "Running"). Items
 * of one domain share one record object, so its JSON is written once per batch and each
 * item refers to it: a batch of 500 addresses at 20 domains stores 20 records, not 500,
 * and builds no object per item. The text: the verdicts, one letter per item (`a`llow,
 * `b`lock, `i`nvalid); then each item's body index, comma-separated; then the bodies, one
 * JSON a line (JSON has no raw line break): the outcome without its input. An outcome's
 * JSON is `{"input":…,` and its body's fields, as `outcomeBody()` writes it.
 */
import type { CheckRecord } from "../../core/record.js";
import { isTemporaryFailure } from "../../core/verdict.js";
import type { FinishedJobBatch, JobCounts, JobResultBatch } from "../../store/index.js";
import { type CheckOutcome, type Verdict, verdictOf } from "../checking/check-many.js";
import { inputProblemDetails, type ProblemBody } from "../shared/problem-codes.js";

const LETTER: Record<Verdict, string> = { allow: "a", block: "b", invalid: "i" };
const VERDICT: Record<string, Verdict> = { a: "allow", b: "block", i: "invalid" };

/** The count an outcome adds to. */
function countOf(outcome: CheckOutcome): keyof JobCounts {
  if ("problem" in outcome) return "invalid";
  if (outcome.status !== undefined && isTemporaryFailure(outcome.status)) return "unknown";
  return outcome.record.block ? "block" : "allow";
}

/**
 * The outcomes of a batch's items, in order, as stored, with the counts they add.
 * `written` remembers each record's JSON for as long as the record lives: the cache
 * answers one domain with one record object until its facts or the policy change.
 */
export function encodeOutcomes(
  outcomes: readonly CheckOutcome[],
  written: WeakMap<CheckRecord, string>,
): FinishedJobBatch {
  const counts: JobCounts = { allow: 0, block: 0, invalid: 0, unknown: 0 };
  const bodies: string[] = [];
  const indexOf = new Map<CheckRecord, number>();
  let verdicts = "";
  const refs: number[] = [];
  for (const outcome of outcomes) {
    counts[countOf(outcome)]++;
    verdicts += LETTER[verdictOf(outcome)];
    if ("problem" in outcome) {
      refs.push(bodies.push(JSON.stringify(inputProblemDetails(outcome.problem))) - 1);
      continue;
    }
    let index = indexOf.get(outcome.record);
    if (index === undefined) {
      let json = written.get(outcome.record);
      if (json === undefined) {
        json = JSON.stringify(outcome.record);
        written.set(outcome.record, json);
      }
      index = bodies.push(json) - 1;
      indexOf.set(outcome.record, index);
    }
    refs.push(index);
  }
  return { results: [verdicts, refs.join(","), ...bodies].join("\n"), counts };
}

/** One item of a checked batch: its row as uploaded, the input checked, the verdict, its outcome. */
export interface ResultItem {
  row: unknown;
  input: string;
  verdict: Verdict;
  /** The outcome's JSON line (`check --json`), without the line break. */
  json(): string;
  /** The outcome as the CSV writer takes it (records shared by the items of one body). */
  outcome(): CheckOutcome;
}

/** The items of a checked batch, in order. */
export function* decodeBatch(batch: JobResultBatch): Generator<ResultItem> {
  const rows = JSON.parse(batch.rows) as unknown[];
  const inputs = JSON.parse(batch.inputs) as string[];
  const [verdicts = "", refs = "", ...bodies] = batch.results.split("\n");
  const indexes = refs.split(",").map(Number);
  const parsed: (CheckRecord | ProblemBody | undefined)[] = [];
  const parsedBody = (index: number) => {
    parsed[index] ??= JSON.parse(bodies[index] ?? "{}") as CheckRecord | ProblemBody;
    return parsed[index];
  };
  for (let i = 0; i < rows.length; i++) {
    const input = inputs[i] ?? "";
    const index = indexes[i] ?? 0;
    yield {
      row: rows[i],
      input,
      verdict: VERDICT[verdicts[i] ?? "a"] ?? "allow",
      json: () => `{"input":${JSON.stringify(input)},${(bodies[index] ?? "{}").slice(1)}`,
      outcome: () => {
        const body = parsedBody(index);
        if ("valid" in body) return { input, record: body };
        return { input, problem: { code: body.code, detail: body.detail } } as CheckOutcome;
      },
    };
  }
}
