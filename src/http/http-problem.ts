/**
 * The one error model of the HTTP API (docs/api.md, "Errors"): the codes and bodies of
 * src/service/shared/problem-codes.ts, raised as `HttpProblem` by any module. A leaf: rendering it
 * as problem JSON or an HTML page is src/http/problem-response.ts.
 */
import {
  PROBLEM_STATUS,
  type ProblemBody,
  type ProblemCode,
  problemBody,
} from "../service/shared/problem-codes.js";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Seconds a client should wait before retrying while the database or the DNS resolver is unavailable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** A problem raised anywhere in a request; the error handler renders it. */
export class HttpProblem extends Error {
  override name = "HttpProblem";
  readonly status: number;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.status = PROBLEM_STATUS[code];
  }

  body(): ProblemBody {
    return problemBody(this.code, this.detail);
  }
}

export function databaseUnavailable(): HttpProblem {
  return new HttpProblem("database_unavailable", "The database is unreachable right now; retry shortly.", {
    "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS),
  });
}

/** While the server shuts down (in-flight requests finish, new ones go elsewhere). */
export function shuttingDown(): HttpProblem {
  return new HttpProblem(
    "shutting_down",
    "The server is shutting down; retry, another instance will answer.",
    {
      "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS),
      connection: "close",
    },
  );
}

export function internalError(): HttpProblem {
  return new HttpProblem(
    "internal_error",
    "Something went wrong on our side; answers with a 5xx are not counted against the quota.",
  );
}
