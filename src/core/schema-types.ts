/**
 * JSON Schema building blocks shared by the record's schema (src/core/record.ts) and the
 * API's other schemas (src/http/schemas.ts). TypeBox, the same the HTTP type provider
 * re-exports, so a schema here types the routes and checks values with `Value.Check`.
 */
import { Type } from "typebox";

const TIMESTAMP_FORMAT = "ISO 8601 with numeric offset, seconds precision, e.g. 2024-09-16T00:39:22+00:00";

/** The options of a docs/api.md "The record" timestamp; its `meaning`, if given, opens the description. */
export function timestampOptions(meaning?: string) {
  return { format: "date-time", description: meaning ? `${meaning} ${TIMESTAMP_FORMAT}.` : TIMESTAMP_FORMAT };
}

/** A docs/api.md "The record" timestamp. */
export const Timestamp = Type.String(timestampOptions());

/** `type: [T, "null"]` rather than `anyOf`: simpler to read and faster to serialise. */
export function nullable<T>(type: "string" | "integer" | "boolean", options: Record<string, unknown> = {}) {
  return Type.Unsafe<T | null>({ ...options, type: [type, "null"] });
}

/** A note's limits: at most `maxLength` characters, and no control character (docs/security.md, "Terminal output"). */
export function noteOptions(maxLength: number) {
  return { maxLength, pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f]*$" };
}
