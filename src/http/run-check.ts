/**
 * The part both checking routes share once access is granted: pick the input field,
 * parse it (400 with the parser's own code) and run the check. A failure is not
 * classified here: the error handler maps it by type (503 for an unreachable database,
 * else 500).
 */
import type { FastifyRequest } from "fastify";
import { type ParseResult, parseDomain, parseEmail } from "../core/input.js";
import type { CheckRecord } from "../core/record.js";
import type { Checker } from "../service/checker.js";
import type { HttpMetrics } from "./metrics.js";
import { HttpProblem } from "./problems.js";

export interface CheckInput {
  email?: string | undefined;
  domain?: string | undefined;
}

export interface RunCheckDeps {
  checker: Checker;
  metrics: HttpMetrics;
}

function given(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/** docs/api.md §2: either field is accepted; when both are sent, a non-empty `email` wins. */
export function selectInput(fields: CheckInput): ParseResult {
  if (given(fields.email)) return parseEmail(fields.email);
  if (given(fields.domain)) return parseDomain(fields.domain);
  return {
    ok: false,
    problem: { code: "missing_input", detail: "Send an email address in `email` or a domain in `domain`." },
  };
}

export async function runCheck(
  deps: RunCheckDeps,
  request: FastifyRequest,
  fields: CheckInput,
): Promise<CheckRecord> {
  const parsed = selectInput(fields);
  if (!parsed.ok) throw new HttpProblem(parsed.problem.code, parsed.problem.detail);
  request.checkedDomain = parsed.input.domain;
  const started = performance.now();
  const result = await deps.checker.check(parsed.input);
  deps.metrics.observeCheck(result, (performance.now() - started) / 1000);
  return result.record;
}
