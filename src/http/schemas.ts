/**
 * TypeBox schemas of the API. They validate requests, serialise responses (the
 * property order is the order on the wire) and generate `/openapi.json`. The record's
 * two shapes (docs/api.md "The record") are src/core/record.ts's, re-exported here.
 */
import { type TSchema, Type } from "@fastify/type-provider-typebox";
import { EvidenceSchema } from "../core/evidence.js";
import { MAX_INPUT_LENGTH } from "../core/input.js";
import { CheckRecordSchema, SimpleRecordSchema } from "../core/record.js";
import { PROBLEM_STATUS, type ProblemCode } from "../service/shared/problem-codes.js";
import { PROBLEM_CONTENT_TYPE } from "./http-problem.js";

export { CheckRecordSchema, SimpleRecordSchema } from "../core/record.js";
export { noteOptions, nullable, Timestamp } from "../core/schema-types.js";

/**
 * A 200 body of a checking route: the record, and `evidence` after its last field only
 * with `explain=true`, so the record
 * without it is exactly the record.
 */
function explainable<P extends object>(properties: P, description: string) {
  return Type.Object({ ...properties, evidence: Type.Optional(EvidenceSchema) }, { description });
}

/** `POST /v2/`: the full record, with `evidence` when asked. */
export const ExplainableRecordSchema = explainable(
  CheckRecordSchema.properties,
  "Domain check record, full shape; `evidence` only with explain=true.",
);

/** `GET /`: the simple record, with `evidence` when asked. */
export const ExplainableSimpleRecordSchema = explainable(
  SimpleRecordSchema.properties,
  "Domain check record, simple shape of the gateway route; `evidence` only with explain=true.",
);

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

/** `explain`: a query parameter, a form field or a JSON field; text in a query or form. */
export const ExplainField = Type.Optional(
  Type.Union([Type.Boolean(), Type.Literal("true"), Type.Literal("false")], {
    description:
      "true: append `evidence`, the evidence behind the verdict, after the record's last field (docs/api.md, “Evidence (`explain=true`)”).",
  }),
);

/** Whether `explain` asks for the evidence. */
export function explains(value: boolean | "true" | "false" | undefined): boolean {
  return value === true || value === "true";
}

/** The input fields, in the query of `GET /` and the body of `POST /v2/`. */
export const CheckInputSchema = Type.Object({
  email: Type.Optional(
    Type.String({ description: `An email address <local>@<domain>. ${inputDescription}` }),
  ),
  domain: Type.Optional(Type.String({ description: `A domain name. ${inputDescription}` })),
  explain: ExplainField,
});

const RATE_LIMIT_HEADERS = {
  "x-ratelimit-requests-remaining": Type.Integer({
    description: "Requests left in the current period; 0 on a 401.",
  }),
  "x-ratelimit-requests-limit": Type.Integer({ description: "Requests per period of the key's plan." }),
  "x-ratelimit-requests-reset": Type.Integer({ description: "Seconds until the current period resets." }),
};

const RETRY_AFTER = { "retry-after": Type.Integer({ description: "Seconds to wait before retrying." }) };

const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: "Missing or invalid input (missing_input, input_too_long, invalid_email, invalid_domain, invalid_body).",
  401: "No API key, another scheme than Bearer, or an incorrect or revoked key (missing_api_key, wrong_auth_scheme, invalid_api_key); x-ratelimit-requests-remaining: 0 and no other rate-limit header.",
  403: "A publishable key on a route other than GET / and POST /v2/ (publishable_key_not_allowed), or from an Origin it does not list (origin_not_allowed); nothing counted, no rate-limit headers.",
  413: "Body larger than 16 KiB (body_too_large).",
  415: "Body content type other than form, multipart or JSON (unsupported_media_type).",
  429: "Quota of the plan used up for this period (quota_exceeded), or a publishable key's client address over PUBLISHABLE_RATE_LIMIT (rate_limited, nothing counted).",
  500: "Unexpected failure (internal_error); not counted.",
  503: "Database unreachable (database_unavailable); not counted. Rate-limit headers only when the key was read before.",
};

/** The rate-limit headers of a problem: a 401 knows no key (remaining 0 only), and a 403 counts none. */
function rateLimitHeadersOf(status: number): Record<string, TSchema> {
  if (status === 403) return {};
  if (status === 401) return { "x-ratelimit-requests-remaining": Type.Literal(0) };
  return RATE_LIMIT_HEADERS;
}

function problemResponse(status: number, extraHeaders: Record<string, TSchema> = {}) {
  return {
    description: STATUS_DESCRIPTIONS[status] ?? "Problem",
    headers: { ...rateLimitHeadersOf(status), ...extraHeaders },
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
    403: problemResponse(403),
    ...(options.readsBody ? { 413: problemResponse(413), 415: problemResponse(415) } : {}),
    429: problemResponse(429, RETRY_AFTER),
    500: problemResponse(500),
    503: problemResponse(503, RETRY_AFTER),
  };
}

export const StatusSchema = Type.Object({ status: Type.Literal("ok") });
