/**
 * The part both checking routes share once access is granted: pick the input field,
 * parse it (400 with the parser's own code), run the check, and classify a failure
 * as the database being down (503) or our own fault (500).
 */
import type { FastifyRequest } from "fastify";
import type { Checker, CheckResult } from "../core/checker.js";
import { type ParseResult, parseDomain, parseEmail } from "../core/input.js";
import type { CheckRecord } from "../core/record.js";
import type { Store } from "../store/types.js";
import type { HttpMetrics } from "./metrics.js";
import { databaseUnavailable, HttpProblem, internalError } from "./problems.js";

export interface CheckInput {
  email?: string | undefined;
  domain?: string | undefined;
}

export interface RunCheckDeps {
  checker: Checker;
  store: Store;
  metrics: HttpMetrics;
}

function given(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/** SPEC §2: either field is accepted; when both are sent, a non-empty `email` wins. */
export function selectInput(fields: CheckInput): ParseResult {
  if (given(fields.email)) return parseEmail(fields.email);
  if (given(fields.domain)) return parseDomain(fields.domain);
  return {
    ok: false,
    problem: { code: "missing_input", detail: "Send an email address in `email` or a domain in `domain`." },
  };
}

async function failure(deps: RunCheckDeps, request: FastifyRequest, error: unknown): Promise<HttpProblem> {
  const databaseDown = await deps.store.ping().then(
    () => false,
    () => true,
  );
  if (databaseDown) {
    request.log.warn({ err: error }, "check failed while the database is unreachable");
    return databaseUnavailable();
  }
  request.log.error({ err: error }, "check failed");
  return internalError();
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
  let result: CheckResult;
  try {
    result = await deps.checker.check(parsed.input);
  } catch (error) {
    throw await failure(deps, request, error);
  }
  deps.metrics.observeCheck(result, (performance.now() - started) / 1000);
  return result.record;
}
