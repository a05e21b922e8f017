/** TypeBox schemas of the admin API (docs/api.md §10): validation, serialisation and `/openapi.json`. */
import { type TSchema, Type } from "@fastify/type-provider-typebox";
import { MAX_ORIGIN_LENGTH } from "../../core/origin.js";
import { MAX_KEY_ORIGINS } from "../../store/keys.js";
import { HttpProblem, PROBLEM_CONTENT_TYPE } from "../problems.js";
import { noteOptions, nullable, ProblemSchema, Timestamp } from "../schemas.js";

const PlanName = Type.String({ minLength: 1, maxLength: 64, description: "Plan name: a–z 0–9 . _ -" });
const Quota = nullable<number>("integer", {
  minimum: 0,
  maximum: 2_147_483_647,
  description: "Requests per period; null: unlimited (still counted).",
});
const PeriodDays = Type.Integer({ minimum: 1, maximum: 3650, description: "Length of a period in days." });

export const KeySchema = Type.Object({
  id: Type.String(),
  prefix: Type.String({ description: "The secret's first characters, safe to show." }),
  name: nullable<string>("string"),
  plan: Type.String(),
  created_at: Timestamp,
  revoked_at: nullable<string>("string", { format: "date-time" }),
  publishable: Type.Boolean({
    description: "A publishable (`mrp_`) key: the checking routes only, from its origins only.",
  }),
  origins: Type.Array(Type.String(), {
    description: "The origins a publishable key may be used from; empty for a secret key.",
  }),
});

export const CreatedKeySchema = Type.Object({
  id: Type.String(),
  key: Type.String({ description: "The secret, shown only in this answer." }),
  prefix: Type.String(),
  name: nullable<string>("string"),
  plan: Type.String(),
  created_at: Timestamp,
  publishable: Type.Boolean(),
  origins: Type.Array(Type.String()),
});

export const KeyWithUsageSchema = Type.Object({
  ...KeySchema.properties,
  usage: Type.Object({
    limit: Quota,
    used: Type.Integer({ description: "Requests counted in the current period." }),
    remaining: nullable<number>("integer", { description: "Requests left this period; null: unlimited." }),
    period_start: Timestamp,
    reset_at: Timestamp,
    periods: Type.Array(Type.Object({ period_start: Timestamp, used: Type.Integer() }), {
      description: "Every stored period, newest first; housekeeping prunes old ones.",
    }),
  }),
});

export const PlanSchema = Type.Object({ name: Type.String(), quota: Quota, period_days: Type.Integer() });

const Origins = Type.Array(Type.String({ maxLength: MAX_ORIGIN_LENGTH }), {
  maxItems: MAX_KEY_ORIGINS,
  description: "Exact origins, `scheme://host[:port]` (http or https, no path, no wildcard).",
});
export const CreateKeyBody = Type.Object({
  plan: PlanName,
  name: Type.Optional(nullable<string>("string", { maxLength: 200 })),
  publishable: Type.Optional(
    Type.Boolean({ description: "Create a publishable (`mrp_`) key; it needs `origins`." }),
  ),
  origins: Type.Optional(Origins),
});
export const MoveKeyBody = Type.Object({ plan: PlanName });
export const KeyOriginsBody = Type.Object({ origins: Origins });
export const CreatePlanBody = Type.Object({
  name: PlanName,
  quota: Quota,
  period_days: Type.Optional(PeriodDays),
});
export const UpdatePlanBody = Type.Object({
  quota: Type.Optional(Quota),
  period_days: Type.Optional(PeriodDays),
});
export const PurgeBody = Type.Object({
  domains: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 1000 })),
  all: Type.Optional(Type.Boolean()),
});
export const PurgedSchema = Type.Object({
  purged: Type.Integer({ description: "How many stored records were deleted." }),
});

const OverrideKindSchema = Type.Union(
  [Type.Literal("domain"), Type.Literal("mx_host"), Type.Literal("mx_ip"), Type.Literal("ns")],
  { description: "What is overridden: a domain, an MX host name, an MX host's address, a name server." },
);
const OverrideValue = Type.String({
  minLength: 1,
  maxLength: 253,
  description: "The domain, host name or address.",
});
export const OverrideTargetBody = Type.Object({ kind: OverrideKindSchema, value: OverrideValue });
export const OverrideBody = Type.Object({
  kind: OverrideKindSchema,
  value: OverrideValue,
  action: Type.Union([Type.Literal("allow"), Type.Literal("deny"), Type.Literal("never_disposable")], {
    description: "allow or deny (a domain); never_disposable (infrastructure).",
  }),
  note: Type.Optional(nullable<string>("string", noteOptions(200))),
});
export const OverrideSchema = Type.Object({
  kind: OverrideKindSchema,
  value: Type.String(),
  action: Type.String(),
  note: nullable<string>("string"),
  created_at: Timestamp,
});
export const RemovedSchema = Type.Object({
  removed: Type.Boolean({ description: "Whether there was an override to remove." }),
});

export const KeyIdParams = Type.Object({ id: Type.String() });
export const PlanNameParams = Type.Object({ name: Type.String() });

const PROBLEMS: Record<number, string> = {
  400: "Invalid body (invalid_body, invalid_plan, invalid_domain, invalid_origins).",
  401: "Missing or incorrect admin token, or another scheme than Bearer (missing_admin_token, invalid_admin_token, wrong_auth_scheme).",
  404: "No such key or plan (unknown_key, unknown_plan).",
  409: "A plan of that name exists already (plan_exists).",
  500: "Unexpected failure (internal_error).",
  503: "Database unreachable (database_unavailable).",
};

function problem(status: number) {
  return {
    description: PROBLEMS[status] ?? "Problem",
    content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
  };
}

/** The responses of an admin route: `success` under its status, and the problems it can answer. */
export function adminResponses(
  status: 200 | 201,
  success: TSchema & { description?: string },
  problems: readonly number[],
) {
  return {
    [status]: {
      description: success.description ?? "Done.",
      content: { "application/json": { schema: success } },
    },
    ...Object.fromEntries([401, ...problems, 500, 503].map((code) => [code, problem(code)])),
  };
}

/** What every admin route's schema shares. */
export const ADMIN_ROUTE = { tags: ["admin"], security: [{ adminToken: [] }] };

/** A `limit` query parameter: digits, as text (query strings hold text, and types are never coerced). */
export function limitQuery(max: number, fallback: number) {
  return Type.Optional(
    Type.String({
      pattern: "^[0-9]{1,4}$",
      description: `At most this many (1–${max}, default ${fallback}).`,
    }),
  );
}

/** The number a `limitQuery` parameter holds (`fallback` when absent), or a 400 outside 1 to `max`. */
export function limitOf(text: string | undefined, max: number, fallback: number): number {
  const limit = text === undefined ? fallback : Number(text);
  if (limit < 1 || limit > max)
    throw new HttpProblem("invalid_body", `\`limit\` is a whole number from 1 to ${max}.`);
  return limit;
}
