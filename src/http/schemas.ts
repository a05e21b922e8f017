/**
 * TypeBox schemas of the API. They validate requests, serialise responses (the
 * property order here is the order on the wire, docs/api.md §4 for both shapes) and
 * generate `/openapi.json`.
 */
import { type TSchema, Type } from "@fastify/type-provider-typebox";
import { MAX_INPUT_LENGTH } from "../core/input.js";
import { PROBLEM_STATUS, type ProblemCode } from "../service/problems.js";
import { PROBLEM_CONTENT_TYPE } from "./problems.js";

const TIMESTAMP = {
  format: "date-time",
  description: "ISO 8601 with numeric offset, seconds precision, e.g. 2024-09-16T00:39:22+00:00",
};
export const Timestamp = Type.String(TIMESTAMP);

/** `type: [T, "null"]` rather than `anyOf`: simpler to read and faster to serialise. */
export function nullable<T>(type: "string" | "integer", options: Record<string, unknown> = {}) {
  return Type.Unsafe<T | null>({ ...options, type: [type, "null"] });
}

export const CheckRecordSchema = Type.Object(
  {
    valid: Type.Boolean(),
    block: Type.Boolean({ description: "Recommendation to block sign-ups from the domain." }),
    domain: Type.String({ description: "The normalised (ASCII) domain that was checked." }),
    base_domain: Type.String({ description: "Registrable domain (Public Suffix List, ICANN section)." }),
    text: Type.String(),
    reason: Type.String(),
    risk: Type.Integer({ minimum: 0, maximum: 100 }),
    is_disposable: Type.Boolean(),
    is_email_forwarder: Type.Boolean(),
    is_public_free: Type.Boolean(),
    is_public_premium: Type.Boolean(),
    is_business_provider: Type.Boolean(),
    is_isp_email: Type.Boolean(),
    is_email_api: Type.Boolean(),
    is_web_hosting_email: Type.Boolean(),
    is_self_hosted: Type.Boolean(),
    is_parked: Type.Boolean(),
    is_role_based_email: Type.Boolean(),
    mx_host: Type.String(),
    mx_ip: Type.String(),
    mx_info: Type.String(),
    mx_fallback: Type.Boolean(),
    mx_hosts: Type.Array(Type.String()),
    mx_ips: Type.Array(Type.String()),
    mx_priorities: Type.Object({}, { additionalProperties: Type.Integer() }),
    email_provider: Type.String(),
    disposable_provider: nullable<string>("string"),
    possible_typo: Type.Array(Type.String(), {
      description: "Suggested domains when this one looks misspelt.",
    }),
    domain_age_days: nullable<number>("integer"),
    domain_created_at: nullable<string>("string", TIMESTAMP),
    block_status_changed_at: Timestamp,
  },
  { description: "Domain check record, full shape." },
);

export const SimpleRecordSchema = Type.Object(
  {
    valid: Type.Boolean(),
    block: Type.Boolean(),
    disposable: Type.Boolean(),
    domain: Type.String(),
    text: Type.String(),
    reason: Type.String(),
    risk: Type.Integer({ minimum: 0, maximum: 100 }),
    mx_host: Type.String(),
    possible_typo: Type.Array(Type.String()),
    mx_ip: Type.String(),
    mx_info: Type.String(),
    last_changed_at: Timestamp,
  },
  { description: "Domain check record, simple shape of the gateway route." },
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
