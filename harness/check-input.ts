/** One uncached check as a caller makes it: parse the input, check its domain, apply the address. */
import { type CheckDeps, checkDomain, forAddress } from "../src/core/check.js";
import { parseInput } from "../src/core/input.js";
import type { CheckRecord } from "../src/core/record.js";

/** Throws for an input the parser refuses: tests and benchmarks only feed valid ones. */
export async function checkInput(raw: string, deps: CheckDeps): Promise<CheckRecord> {
  const parsed = parseInput(raw, deps);
  if (!parsed.ok) throw new Error(`the input "${raw}" is invalid: ${parsed.problem.detail}`);
  return forAddress(await checkDomain(parsed.input.domain, deps), parsed.input, deps.lists).record;
}
