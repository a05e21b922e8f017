/**
 * What every admin route's schema shares (docs/api.md "Administration"); each entity's own shapes are
 * its service's, in src/operator/.
 */
import { type TSchema, Type } from "@fastify/type-provider-typebox";
import type { preHandlerAsyncHookHandler } from "fastify";
import { PROBLEM_CONTENT_TYPE } from "../http-problem.js";
import { ProblemSchema } from "../schemas.js";

const PROBLEMS: Record<number, string> = {
  400: "Invalid body (invalid_body, invalid_plan, invalid_domain, invalid_origins).",
  401: "Missing or incorrect admin token, or another scheme than Bearer (missing_admin_token, invalid_admin_token, wrong_auth_scheme).",
  404: "No such key, plan or report (unknown_key, unknown_plan, unknown_report).",
  409: "A plan of that name exists already, or the report was reviewed already (plan_exists, report_not_open).",
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
function adminResponses(
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
const ADMIN_ROUTE = { tags: ["admin"], security: [{ adminToken: [] }] };

/** What an admin route's schema says besides its answers: a summary, and its description, parameters and body. */
interface RouteParts {
  summary: string;
  description?: string;
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
}

/**
 * An admin route's options: its schema, made of `parts` (or only a summary), the `answer`
 * under `status` (a 201 is set before the handler runs), and the problems it can answer
 * besides those every admin route can.
 */
export function adminRoute<const Parts extends RouteParts>(
  parts: Parts | string,
  answer: TSchema & { description?: string },
  problems: readonly number[] = [],
  status: 200 | 201 = 200,
): {
  schema: typeof ADMIN_ROUTE & Parts & { response: ReturnType<typeof adminResponses> };
  preHandler?: preHandlerAsyncHookHandler;
} {
  const described = typeof parts === "string" ? { summary: parts } : parts;
  const schema = {
    ...ADMIN_ROUTE,
    ...(described as Parts),
    response: adminResponses(status, answer, problems),
  };
  return status === 200 ? { schema } : { schema, preHandler: async (_, reply) => void reply.code(status) };
}

/** A `limit` query parameter: digits, as text (query strings hold text, and types are never coerced). */
export function limitQuery(max: number, fallback: number) {
  return Type.Optional(
    Type.String({
      pattern: "^[0-9]{1,4}$",
      description: `At most this many (1–${max}, default ${fallback}).`,
    }),
  );
}
