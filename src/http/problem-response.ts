/**
 * Whatever a request raised, answered as a problem (docs/api.md, "Errors"): RFC 9457
 * problem JSON, or the HTML error page to a client that prefers text/html (a browser).
 * Anything unexpected becomes `internal_error` with a fixed sentence, so a 5xx never
 * leaks internals.
 */
import type { FastifyBaseLogger, FastifyError, FastifyReply } from "fastify";
import { AccountSuspendedError } from "../core/refusals.js";
import type { Refusal } from "../operator/refusal.js";
import { renderErrorPage } from "../page-kit/error-page.js";
import { sendPage } from "../page-kit/layout.js";
import { BASIC_PAGE_HEADERS } from "../page-kit/page-headers.js";
import { ReportProblem } from "../service/checking/report-filing.js";
import { StoreUnavailableError } from "../store/index.js";
import { prefersHtml } from "./accept.js";
import { databaseUnavailable, HttpProblem, internalError, PROBLEM_CONTENT_TYPE } from "./http-problem.js";
import { BODY_LIMIT_BYTES } from "./limits.js";

const FASTIFY_PROBLEMS: Record<string, () => HttpProblem> = {
  FST_ERR_BAD_URL: () => new HttpProblem("invalid_url", "The URL is not valid (check its percent-encoding)."),
  FST_ERR_MAX_PARAM_LENGTH: () => new HttpProblem("invalid_url", "A part of the URL is too long."),
  FST_ERR_CTP_BODY_TOO_LARGE: () =>
    new HttpProblem(
      "body_too_large",
      `The request body is larger than the limit of ${BODY_LIMIT_BYTES / 1024} KiB.`,
    ),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new HttpProblem(
      "unsupported_media_type",
      "Send the body as application/x-www-form-urlencoded, multipart/form-data or application/json.",
    ),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new HttpProblem("invalid_body", "The Content-Length header does not match the body."),
  FST_ERR_CTP_EMPTY_JSON_BODY: () =>
    new HttpProblem("invalid_body", "The JSON body is empty; send an object with `domain` or `email`."),
};

/** A query parameter outside its allowed values: 400 naming it and them (`format` takes csv or jsonl). */
function queryProblem(error: FastifyError, path: string): HttpProblem {
  const name = path.replace(/^\//, "");
  const allowed = new Set<string>();
  for (const entry of error.validation ?? []) {
    if (entry.instancePath !== path) continue;
    const params = entry.params as { allowedValue?: unknown; allowedValues?: unknown[] };
    if (params.allowedValue !== undefined) allowed.add(String(params.allowedValue));
    for (const value of params.allowedValues ?? []) allowed.add(String(value));
  }
  const values = [...allowed];
  const list =
    values.length > 1
      ? `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`
      : (values[0] ?? "another value");
  return new HttpProblem(
    "invalid_url",
    name === "" ? "The query is not valid for this route." : `The query parameter \`${name}\` takes ${list}.`,
  );
}

/** Which input field a schema violation concerns, by the first error's path. */
function validationProblem(error: FastifyError): HttpProblem {
  const path = error.validation?.[0]?.instancePath ?? "";
  if (path.startsWith("/email")) {
    return new HttpProblem("invalid_email", "`email` must be one text value.");
  }
  if (path.startsWith("/domain")) {
    return new HttpProblem("invalid_domain", "`domain` must be one text value.");
  }
  if (path.startsWith("/explain")) return new HttpProblem("invalid_body", "`explain` takes true or false.");
  if (error.validationContext === "querystring") return queryProblem(error, path);
  return new HttpProblem(
    "invalid_body",
    "The request must carry an object with a `domain` or `email` field.",
  );
}

/**
 * Maps whatever a request raised to a problem. Fastify's own client errors (body
 * parsing, limits, validation) keep their meaning; everything else is internal.
 */
export function toProblem(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof AccountSuspendedError) return new HttpProblem("account_suspended", error.message);
  if (error instanceof ReportProblem) {
    const seconds = error.retryAfterSeconds;
    return new HttpProblem(error.code, error.message, seconds ? { "retry-after": String(seconds) } : {});
  }
  const fastifyError = error as Partial<FastifyError> | null;
  if (fastifyError?.validation) return validationProblem(fastifyError as FastifyError);
  const known = fastifyError?.code ? FASTIFY_PROBLEMS[fastifyError.code] : undefined;
  if (known) return known();
  const status = fastifyError?.statusCode;
  if (status === 413) return new HttpProblem("body_too_large", "The request body is too large.");
  if (status === 415) {
    return new HttpProblem("unsupported_media_type", "The request body's content type is not supported.");
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new HttpProblem(
      "invalid_body",
      "The request body could not be read (malformed JSON or form data).",
    );
  }
  return internalError();
}

/**
 * What every scope's error handler answers, by the error's type: an `HttpProblem` as
 * itself; `StoreUnavailableError` as 503 `database_unavailable` (logged at warn, the
 * database is expected back); Fastify's client errors as theirs; anything else as 500
 * `internal_error` (logged at error, it is our fault).
 */
/** A service's refusal (src/operator/refusal.ts) as a problem: its code, its message as a sentence. */
export function refusalProblem(refusal: Refusal): HttpProblem {
  const detail = refusal.message.charAt(0).toUpperCase() + refusal.message.slice(1);
  return new HttpProblem(refusal.code, detail.endsWith(".") ? detail : `${detail}.`);
}

export function problemFor(error: unknown, log: FastifyBaseLogger): HttpProblem {
  if (error instanceof StoreUnavailableError) {
    log.warn({ err: error }, "database unavailable");
    return databaseUnavailable();
  }
  const problem = toProblem(error);
  if (problem.status >= 500 && !(error instanceof HttpProblem)) {
    log.error({ err: error }, "unhandled error");
  }
  return problem;
}

/** Sends a problem: the HTML error page when the client prefers text/html, else problem JSON. */
export function sendProblem(reply: FastifyReply, problem: HttpProblem): FastifyReply {
  if (prefersHtml(reply.request.headers.accept)) return sendProblemPage(reply, problem);
  return reply
    .code(problem.status)
    .headers({ ...problem.headers, vary: "Accept" })
    .type(PROBLEM_CONTENT_TYPE)
    .send(problem.body());
}

/** The problem as the HTML error page, with the pages' essential security headers. */
export function sendProblemPage(reply: FastifyReply, problem: HttpProblem): FastifyReply {
  return sendPage(
    reply.headers({ ...BASIC_PAGE_HEADERS, ...problem.headers, vary: "Accept" }),
    renderErrorPage(problem),
    problem.status,
  );
}
