/**
 * Checks many inputs in input order (the CLI's `check`, `POST /v2/bulk`): items come from
 * any (async) iterable as they arrive, at most `concurrency` checks run at once, and each
 * outcome is yielded as soon as it and every earlier one are done. At most `window`
 * items (default twice the concurrency) are held at a time, read or checked but not yet
 * taken, so memory stays flat on a list of any length, and a slow check holds back the
 * output, never the reading beyond the window.
 *
 * An input that is not an email address or a domain is an outcome too (its problem), so
 * the run goes on; a failing check (database unreachable) ends the run with its error.
 * Leaving early (`break`, a closed output) stops reading and waits for the checks
 * already started.
 */

import pLimit from "p-limit";
import type { EvidenceItem } from "../../core/evidence.js";
import { type InputProblem, type ParsedInput, parseInput } from "../../core/input.js";
import type { CheckRecord } from "../../core/record.js";
import type { NameRules } from "../../core/reserved-names.js";
import { inputProblemDetails, type ProblemBody } from "../shared/problem-codes.js";
import type { Checker, CheckResult, Lane } from "./checker.js";

/** One input as given, and what came of it (with the evidence behind a record, made when asked). */
export type CheckOutcome =
  | { input: string; record: CheckRecord; status?: CheckResult["status"]; explain?: CheckResult["explain"] }
  | { input: string; problem: InputProblem };

export interface Checked<T> {
  item: T;
  outcome: CheckOutcome;
}

/** block: the record says block; allow: it does not; invalid: the input is no address or domain. */
export type Verdict = "block" | "allow" | "invalid";

export function verdictOf(outcome: CheckOutcome): Verdict {
  if ("problem" in outcome) return "invalid";
  return outcome.record.block ? "block" : "allow";
}

/** Whether `only` keeps an outcome (`check --only`): block keeps blocked and invalid inputs, allow the rest. */
export function keptBy(only: "block" | "allow" | undefined, outcome: CheckOutcome): boolean {
  if (only === undefined) return true;
  return (verdictOf(outcome) === "allow") === (only === "allow");
}

export interface CheckManyOptions extends NameRules {
  checker: Pick<Checker, "check">;
  /** Checks at a time (at least 1). */
  concurrency: number;
  /** Items held at a time, read but not yet yielded; default twice the concurrency. */
  window?: number;
  /** Told of every check and its time in seconds (metrics). */
  onChecked?: (result: CheckResult, seconds: number) => void;
  /** The look-up budget and client the checks draw on (`POST /v2/bulk`: the API's, the key); default the process's own. */
  lane?: Lane;
}

/**
 * An outcome as JSON (a `check --json` line, a bulk result): the input as given, then the
 * full record or the problem object; with `explain`, a record ends with its evidence.
 */
export type OutcomeBody = { input: string } & (
  | CheckRecord
  | (CheckRecord & { evidence: readonly EvidenceItem[] })
  | ProblemBody
);

export function outcomeBody(outcome: CheckOutcome, explain = false): OutcomeBody {
  if ("problem" in outcome) return { input: outcome.input, ...inputProblemDetails(outcome.problem) };
  if (!explain) return { input: outcome.input, ...outcome.record };
  return { input: outcome.input, ...outcome.record, evidence: outcome.explain?.() ?? [] };
}

type Source<T> = AsyncIterable<T> | Iterable<T>;

/** Checks one input as given: a problem when it is neither an email address nor a domain (docs/api.md "Inputs"). */
export async function checkOne(
  input: string,
  options: Pick<CheckManyOptions, "checker" | "onChecked" | "lane" | "testNames">,
): Promise<CheckOutcome> {
  const parsed = parseInput(input, options);
  if (!parsed.ok) return { input, problem: parsed.problem };
  const { record, status, explain } = await timedCheck(parsed.input, options);
  return { input, record, status, explain };
}

async function timedCheck(
  input: ParsedInput,
  options: Pick<CheckManyOptions, "checker" | "onChecked" | "lane">,
): Promise<CheckResult> {
  const started = performance.now();
  const result = await options.checker.check(input, options.lane);
  options.onChecked?.(result, (performance.now() - started) / 1000);
  return result;
}

/** A flag to wait on: `wait()` resolves at the next `wake()`. */
function signal() {
  let wakeUp: (() => void) | undefined;
  return {
    wait: () =>
      new Promise<void>((resolve) => {
        wakeUp = resolve;
      }),
    wake: () => {
      const resolve = wakeUp;
      wakeUp = undefined;
      resolve?.();
    },
  };
}

export function checkMany(items: Source<string>, options: CheckManyOptions): AsyncGenerator<Checked<string>>;
export function checkMany<T>(
  items: Source<T>,
  options: CheckManyOptions & { inputOf: (item: T) => string },
): AsyncGenerator<Checked<T>>;
export async function* checkMany<T>(
  items: Source<T>,
  options: CheckManyOptions & { inputOf?: (item: T) => string },
): AsyncGenerator<Checked<T>> {
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const window = Math.max(concurrency, options.window ?? concurrency * 2);
  const inputOf = options.inputOf ?? ((item: T) => item as unknown as string);
  const limit = pLimit(concurrency);
  /** Checks started or queued, oldest first, not yet yielded; undefined once the run stopped. */
  const held: Promise<Checked<T> | undefined>[] = [];
  let reading = true;
  let stopped = false;
  let readError: unknown;
  const produced = signal();
  const consumed = signal();

  const check = async (item: T): Promise<Checked<T> | undefined> =>
    stopped ? undefined : { item, outcome: await checkOne(inputOf(item), options) };

  const reader = (async () => {
    try {
      for await (const item of items) {
        const task = limit(check, item);
        task.catch(() => undefined); // the consumer awaits it; never an unhandled rejection
        held.push(task);
        produced.wake();
        while (held.length >= window && !stopped) await consumed.wait();
        if (stopped) break;
      }
    } catch (error) {
      readError = error;
    } finally {
      reading = false;
      produced.wake();
    }
  })();

  try {
    for (;;) {
      while (held.length === 0 && reading) await produced.wait();
      const next = held.shift();
      if (next === undefined) break;
      consumed.wake();
      const checked = await next;
      if (checked) yield checked;
    }
    await reader;
    if (readError !== undefined) throw readError;
  } finally {
    stopped = true;
    consumed.wake();
    await Promise.allSettled(held);
  }
}
