/** Request size limits of the HTTP API (docs/api.md "Errors"). */
import { MAX_INPUT_LENGTH } from "../core/input.js";

/** Largest accepted request body: 16 KiB. */
export const BODY_LIMIT_BYTES = 16 * 1024;

/** A client must send its request line and headers within this (Node's `headersTimeout`; 408 otherwise). */
export const HEADERS_TIMEOUT_MS = 10_000;

/** …and its whole request, body included, within this (Node's `requestTimeout`). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** How often Node looks for requests past those timeouts (its default, 30 s, would let one last 40 s). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** Longest URL path parameter (a result page's domain): any input docs/api.md "Inputs" takes, percent-encoded. */
export const MAX_PARAM_LENGTH = MAX_INPUT_LENGTH * 12;

/**
 * Largest accepted `POST /v2/bulk` body: `maxItems` inputs of the longest ASCII input
 * (320 characters, quoted, with a comma) and room for the object around them; 331 KB
 * for 1,000 items.
 */
export function bulkBodyLimit(maxItems: number): number {
  return maxItems * (MAX_INPUT_LENGTH + 10) + 1024;
}
