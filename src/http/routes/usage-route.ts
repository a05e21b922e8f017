/**
 * `GET /v2/usage` (docs/api.md "Keys, plans, quotas"): the key's plan and its use of the current period.
 * Declared inside the checking plugin with `units: 0`: authenticated like `POST /v2/`
 * and carrying the rate-limit headers, but never counted, not even when the quota is
 * used up.
 */
import { Type } from "@fastify/type-provider-typebox";
import { formatTimestamp } from "../../core/record.js";
import { checkingResponses, nullable, Timestamp } from "../schemas.js";
import type { TypedApp } from "../typed-app.js";

export const UsageSchema = Type.Object(
  {
    plan: Type.String({ description: "The key's plan." }),
    limit: nullable<number>("integer", { description: "Requests per period; null: unlimited." }),
    used: Type.Integer({ description: "Requests counted in the current period." }),
    remaining: nullable<number>("integer", { description: "Requests left this period; null: unlimited." }),
    reset_at: Timestamp,
  },
  { description: "The key's usage in the current period." },
);

const responses = checkingResponses(UsageSchema, { readsBody: false, challenges: true });

export function usageRoute(app: TypedApp): void {
  app.route({
    method: "GET",
    url: "/v2/usage",
    config: { credentials: "bearer", units: 0 },
    schema: {
      summary: "The key's plan and usage in the current period (not counted)",
      description:
        "Authenticates with `Authorization: Bearer KEY` like `POST /v2/` and answers the plan, its limit, what the current period has used and when it resets. Counts nothing, and answers even when the quota is used up.",
      tags: ["check"],
      security: [{ bearerKey: [] }],
      response: {
        200: { ...responses[200], description: "The key's usage." },
        401: responses[401],
        500: responses[500],
        503: responses[503],
      },
    },
    handler: async (request) => {
      const caller = request.caller;
      if (!caller) throw new Error("GET /v2/usage ran without the access hook");
      const { quota } = caller;
      return {
        plan: caller.key.plan,
        limit: quota.limit,
        used: quota.used,
        remaining: quota.remaining,
        reset_at: formatTimestamp(quota.resetAt),
      };
    },
  });
}
