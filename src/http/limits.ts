/** Request size limits of the HTTP API (docs/api.md §5). */

/** Largest accepted request body: 16 KiB. */
export const BODY_LIMIT_BYTES = 16 * 1024;
