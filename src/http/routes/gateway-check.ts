/**
 * `GET /` — the gateway route (docs/api.md "Routes"): key in `X-Gateway-Key`, input in
 * the query, the simple record on success. A browser asking for HTML without a query
 * is routed to the home page instead (the site plugin, `homePage` constraint), so it never
 * reaches this route.
 */
import { Type } from "@fastify/type-provider-typebox";
import { toSimpleRecord } from "../../core/record.js";
import type { CheckingDeps } from "../checking-deps.js";
import { explainedAnswers, runCheck } from "../run-check.js";
import {
  CheckInputSchema,
  checkingResponses,
  ExplainableSimpleRecordSchema,
  explains,
  SimpleRecordSchema,
} from "../schemas.js";
import type { TypedApp } from "../typed-app.js";

/** Declared inside the checking plugin, which authenticates, counts and adds the rate-limit headers. */
export function gatewayCheckRoute(app: TypedApp, deps: CheckingDeps): void {
  const explained = explainedAnswers();
  const answer = deps.answers.gateway;
  app.route({
    method: "GET",
    url: "/",
    config: { credentials: "gateway", publishable: true },
    schema: {
      summary: "Check an email address or domain (gateway route, simple record)",
      description:
        "Authenticates with `X-Gateway-Key`, counts one request against the key's quota, and returns the simple record; with `explain=true` it ends with `evidence`, the evidence behind its verdict. A browser request without `email`/`domain` that prefers text/html gets the home page instead.",
      tags: ["check"],
      security: [{ gatewayKey: [] }],
      querystring: CheckInputSchema,
      response: checkingResponses(ExplainableSimpleRecordSchema, {
        readsBody: false,
        challenges: false,
        html: Type.String(),
      }),
    },
    handler: async (request, reply) => {
      // The same URL serves the home page to browsers.
      reply.header("vary", "Accept");
      const result = await runCheck(deps, request, request.query);
      if (!explains(request.query.explain)) return answer.send(reply, result.record);
      return reply.send(explained(reply, SimpleRecordSchema, toSimpleRecord(result.record), result));
    },
  });
}
