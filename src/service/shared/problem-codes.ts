/**
 * The one problem model (docs/api.md "Errors") that the API and the CLI share: a fixed set of
 * stable codes, each mapped to one status, rendered as RFC 9457 problem details. The
 * HTTP layer raises and sends them (src/http/http-problem.ts); `check --json` and the bulk
 * route print an input's problem as one of these objects.
 */
import { STATUS_CODES } from "node:http";
import type { InputProblem } from "../../core/input.js";

export const PROBLEM_STATUS = {
  missing_input: 400,
  input_too_long: 400,
  invalid_email: 400,
  invalid_domain: 400,
  invalid_body: 400,
  invalid_url: 400,
  invalid_request: 400,
  invalid_plan: 400,
  invalid_origins: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  wrong_auth_scheme: 401,
  account_suspended: 401,
  missing_admin_token: 401,
  invalid_admin_token: 401,
  missing_metrics_token: 401,
  invalid_metrics_token: 401,
  origin_not_allowed: 403,
  publishable_key_not_allowed: 403,
  csrf_failed: 403,
  not_found: 404,
  unknown_key: 404,
  unknown_plan: 404,
  unknown_report: 404,
  unknown_webhook: 404,
  unknown_source: 404,
  unknown_account: 404,
  signup_closed: 404,
  unknown_job: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  plan_exists: 409,
  plan_in_use: 409,
  report_not_open: 409,
  account_exists: 409,
  too_many_keys: 409,
  too_many_entries: 409,
  job_not_done: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  report_matches_answer: 422,
  quota_exceeded: 429,
  too_many_reports: 429,
  too_many_concurrent_requests: 429,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  database_unavailable: 503,
  dns_unavailable: 503,
  shutting_down: 503,
  server_busy: 503,
} as const;

export type ProblemCode = keyof typeof PROBLEM_STATUS;

export interface ProblemBody {
  type: "about:blank";
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
}

/** The problem details of a code, in the contract's field order. */
export function problemBody(code: ProblemCode, detail: string): ProblemBody {
  const status = PROBLEM_STATUS[code];
  return { type: "about:blank", title: STATUS_CODES[status] ?? "Error", status, detail, code };
}

/** An input problem of the parser as problem details (the API's 400 body; a `check --json` line; a bulk result). */
export function inputProblemDetails(problem: InputProblem): ProblemBody {
  return problemBody(problem.code, problem.detail);
}
