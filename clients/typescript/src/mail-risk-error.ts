/** A failed call: the server's problem (docs/api.md "Errors"), or the client's own when no problem came. */
import type { Problem } from "./wire-types.generated.js";

/** A problem code the server answers (docs/api.md, "Errors"). */
export type ProblemCode = Problem["code"];

/** Codes of failures with no problem answer: no answer in time, no connection, an answer that is no problem JSON. */
export type ClientErrorCode = "timeout" | "unreachable" | "unexpected_response";

export class MailRiskError extends Error {
  override name = "MailRiskError";

  constructor(
    /** The problem's `code`, or the client's own. */
    readonly code: ProblemCode | ClientErrorCode,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    /** The problem's `detail`: a sentence for a person. */
    readonly detail: string,
    /** `Retry-After` in seconds, when the answer had one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}${status > 0 ? ` (${status})` : ""}: ${detail}`);
  }

  /** A time-out, no connection or a 5xx: what `failOpen` answers as unknown. */
  get unavailable(): boolean {
    return this.status === 0 || this.status >= 500;
  }
}
