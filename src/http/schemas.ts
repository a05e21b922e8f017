/**
 * TypeBox schemas of the API. They validate requests, serialise responses (the
 * property order is the order on the wire) and generate `/openapi.json`. The record's
 * two shapes (docs/api.md §4) are src/core/record.ts's, re-exported here.
 */
import { type TSchema, Type } from "@fastify/type-provider-typebox";
import { MAX_INPUT_LENGTH } from "../core/input.js";
import { PROBLEM_STATUS, type ProblemCode } from "../service/problems.js";
import { PROBLEM_CONTENT_TYPE } from "./problems.js";

export { CheckRecordSchema, SimpleRecordSchema } from "../core/record.js";
export { nullable, Timestamp } from "../core/schema-types.js";

export const ProblemSchema = Type.Object(
  {
    type: Type.Literal("about:blank"),
    title: Type.String({ description: "The status phrase." }),
    status: Type.Integer(),
    detail: Type.String({ description: "What went wrong, for a person." }),
    code: Type.Unsafe<ProblemCode>({
      type: "string",
      enum: Object.keys(PROBLEM_STATUS),
      description: "Stable machine-readable code.",
    }),
  },
  { description: "RFC 9457 problem details." },
);

const inputDescription = `At most ${MAX_INPUT_LENGTH} characters. When both fields are sent, a non-empty \`email\` wins.`;

/** The input fields, in the query of `GET /` and the body of `POST /v2/`. */
export const CheckInputSchema = Type.Object({
  email: Type.Optional(
    Type.String({ description: `An email address <local>@<domain>. ${inputDescription}` }),
  ),
  domain: Type.Optional(Type.String({ description: `A domain name. ${inputDescription}` })),
});

const RATE_LIMIT_HEADERS = {
  "x-ratelimit-requests-remaining": Type.Integer({
    description: "Requests left in the current period (0 when the key is missing or unknown).",
  }),
  "x-ratelimit-requests-limit": Type.Integer({ description: "Requests per period of the key's plan." }),
  "x-ratelimit-requests-reset": Type.Integer({ description: "Seconds until the current period resets." }),
};

const RETRY_AFTER = { "retry-after": Type.Integer({ description: "Seconds to wait before retrying." }) };

const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: "Missing or invalid input (missing_input, input_too_long, invalid_email, invalid_domain, invalid_body).",
  401: "Missing, incorrect or revoked API key (missing_api_key, invalid_api_key).",
  413: "Body larger than 16 KiB (body_too_large).",
  415: "Body content type other than form, multipart or JSON (unsupported_media_type).",
  429: "Quota of the plan used up for this period (quota_exceeded).",
  500: "Unexpected failure (internal_error); not counted.",
  503: "Database unreachable (database_unavailable); not counted.",
};

function problemResponse(status: number, extraHeaders: Record<string, TSchema> = {}) {
  return {
    description: STATUS_DESCRIPTIONS[status] ?? "Problem",
    headers: { ...RATE_LIMIT_HEADERS, ...extraHeaders },
    content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
  };
}

/**
 * Responses of a checking route: the record on 200, a problem on every failure status;
 * 413/415 when the route reads a body, `WWW-Authenticate` when it challenges (Bearer).
 */
export function checkingResponses(
  success: TSchema,
  options: { readsBody: boolean; challenges: boolean; html?: TSchema },
) {
  return {
    200: {
      description: "The check record.",
      headers: RATE_LIMIT_HEADERS,
      content: {
        "application/json": { schema: success },
        ...(options.html ? { "text/html": { schema: options.html } } : {}),
      },
    },
    400: problemResponse(400),
    401: problemResponse(401, options.challenges ? { "www-authenticate": Type.String() } : {}),
    ...(options.readsBody ? { 413: problemResponse(413), 415: problemResponse(415) } : {}),
    429: problemResponse(429, RETRY_AFTER),
    500: problemResponse(500),
    503: problemResponse(503, RETRY_AFTER),
  };
}

export const StatusSchema = Type.Object({ status: Type.Literal("ok") });
