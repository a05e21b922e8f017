/**
 * The client (docs/clients.md): `check`, `bulk` and `usage` over `fetch`, for Node ≥ 20
 * and browsers. One deadline per call (`timeoutMs`), a retry included: a 503 or 429 with
 * `Retry-After` is tried once more when the wait fits before it. Problems become a
 * `MailRiskError`; with `failOpen`, `check()` answers a time-out, a 5xx or no connection
 * as `{ outcome: "unknown" }`.
 */
import { type ClientErrorCode, MailRiskError } from "./mail-risk-error.js";
import type { BulkResult, CheckedRecord, CheckOutcome, Problem, Usage } from "./types.js";

export interface MailRiskOptions<FailOpen extends boolean = false> {
  /** The service's base URL, e.g. `https://mailrisk.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** The API key: a secret key (`mr_…`) on a server; in a browser only a publishable key (`mrp_…`). */
  key: string;
  /** The most one call may take, a retry included, in milliseconds (default 3000). */
  timeoutMs?: number;
  /** `check()` answers `{ outcome: "unknown" }` instead of throwing on a time-out, a 5xx or no connection. */
  failOpen?: FailOpen;
}

export const DEFAULT_TIMEOUT_MS = 3000;
const RETRIED_STATUSES = new Set([429, 503]);

/** Seconds of a `Retry-After` header (a number of seconds or an HTTP date), or undefined. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

function isProblem(body: unknown): body is Problem {
  const problem = body as Partial<Problem> | null;
  return typeof problem?.code === "string" && typeof problem.detail === "string";
}

/** The error of an answer that is not 2xx. */
async function errorOf(response: Response): Promise<MailRiskError> {
  const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
  const body: unknown = await response.json().catch(() => null);
  if (isProblem(body)) return new MailRiskError(body.code, response.status, body.detail, retryAfter);
  return new MailRiskError(
    "unexpected_response",
    response.status,
    `The service answered ${response.status} with no problem details.`,
    retryAfter,
  );
}

/** The error of a `fetch` that got no answer. */
function noAnswer(error: unknown, timeoutMs: number): MailRiskError {
  const name = (error as { name?: string } | null)?.name;
  const code: ClientErrorCode = name === "TimeoutError" || name === "AbortError" ? "timeout" : "unreachable";
  return new MailRiskError(
    code,
    0,
    code === "timeout"
      ? `The service did not answer within ${timeoutMs} ms.`
      : `The service could not be reached: ${(error as Error).message}.`,
  );
}

export class MailRisk<FailOpen extends boolean = false> {
  readonly #base: URL;
  readonly #key: string;
  readonly #timeoutMs: number;
  readonly #failOpen: boolean;

  constructor(options: MailRiskOptions<FailOpen>) {
    this.#base = new URL(options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`);
    this.#key = options.key;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#failOpen = options.failOpen === true;
  }

  /**
   * Checks an email address (with `@`) or a domain: `POST /v2/`. Resolves to the full
   * record (docs/api.md "The record") with `outcome: "checked"` added; with `failOpen`, a time-out,
   * a 5xx or no connection resolves to `{ outcome: "unknown", error }` instead.
   */
  async check(emailOrDomain: string, options: { explain?: boolean } = {}): Promise<CheckOutcome<FailOpen>> {
    const field = emailOrDomain.includes("@") ? "email" : "domain";
    const body = { [field]: emailOrDomain, ...(options.explain ? { explain: true } : {}) };
    try {
      const record = await this.#call<CheckedRecord>("POST", "v2/", body);
      return { ...record, outcome: "checked" } as CheckOutcome<FailOpen>;
    } catch (error) {
      if (this.#failOpen && error instanceof MailRiskError && error.unavailable) {
        return { outcome: "unknown", error } as CheckOutcome<FailOpen>;
      }
      throw error;
    }
  }

  /** Checks many inputs in one request: `POST /v2/bulk`, one result per item in order, each costing a unit of quota. */
  async bulk(items: readonly string[], options: { explain?: boolean } = {}): Promise<BulkResult[]> {
    const body = { items, ...(options.explain ? { explain: true } : {}) };
    return (await this.#call<{ results: BulkResult[] }>("POST", "v2/bulk", body)).results;
  }

  /** The key's plan and usage of the current period: `GET /v2/usage` (counts nothing). */
  usage(): Promise<Usage> {
    return this.#call<Usage>("GET", "v2/usage");
  }

  async #call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const deadline = Date.now() + this.#timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const response = await this.#send(method, path, body, deadline);
      if (response.ok) return this.#read<T>(response);
      const error = await errorOf(response).catch((failure: unknown) => noAnswer(failure, this.#timeoutMs));
      const waitMs = (error.retryAfterSeconds ?? Number.POSITIVE_INFINITY) * 1000;
      if (attempt > 1 || !RETRIED_STATUSES.has(error.status) || Date.now() + waitMs >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  /** One request, aborted at the deadline; a `MailRiskError` when no answer came. */
  async #send(method: string, path: string, body: unknown, deadline: number): Promise<Response> {
    try {
      return await fetch(new URL(path, this.#base), {
        method,
        headers: {
          accept: "application/json",
          authorization: `Bearer ${this.#key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
      });
    } catch (error) {
      throw noAnswer(error, this.#timeoutMs);
    }
  }

  /** A 2xx answer's JSON body (still under the deadline's signal). */
  async #read<T>(response: Response): Promise<T> {
    try {
      return (await response.json()) as T;
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw noAnswer(error, this.#timeoutMs);
      throw new MailRiskError("unexpected_response", response.status, "The service answered no JSON.");
    }
  }
}
