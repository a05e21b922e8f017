/** Request size limits of the HTTP API (docs/api.md §5). */
import { MAX_INPUT_LENGTH } from "../core/input.js";

/** Largest accepted request body: 16 KiB. */
export const BODY_LIMIT_BYTES = 16 * 1024;

/** Longest URL path parameter (a result page's domain): any input docs/api.md §2 takes, percent-encoded. */
export const MAX_PARAM_LENGTH = MAX_INPUT_LENGTH * 12;

/** Items one `POST /v2/bulk` takes unless BULK_MAX_ITEMS says otherwise. */
export const DEFAULT_BULK_MAX_ITEMS = 1000;

/**
 * Largest accepted `POST /v2/bulk` body: `maxItems` inputs of the longest ASCII input
 * (320 characters, quoted, with a comma) and room for the object around them; 331 KB
 * for 1,000 items.
 */
export function bulkBodyLimit(maxItems: number): number {
  return maxItems * (MAX_INPUT_LENGTH + 10) + 1024;
}
