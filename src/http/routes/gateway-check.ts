/**
 * `GET /` — the gateway route (seed §4.1, SPEC §3): key in `X-Gateway-Key`, input in
 * the query, the simple record on success. A browser asking for HTML without a
 * query gets the home page instead, without key or quota.
 */

import { Type } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { toSimpleRecord } from "../../core/record.js";
import { prefersHtml } from "../accept.js";
import { accessHook, rateLimitHeadersHook } from "../access.js";
import { renderHomePage } from "../pages/home.js";
import type { RouteDeps, TypedApp } from "../route-deps.js";
import { runCheck } from "../run-check.js";
import { CheckInputSchema, checkingResponses, SimpleRecordSchema } from "../schemas.js";

function asksForHomePage(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  const hasInput = query !== undefined && ("email" in query || "domain" in query);
  return !hasInput && prefersHtml(request.headers.accept);
}

export function gatewayCheckRoute(app: TypedApp, deps: RouteDeps): void {
  app.route({
    method: "GET",
    url: "/",
    config: { checking: true },
    schema: {
      summary: "Check an email address or domain (gateway route, simple record)",
      description:
        "Authenticates with `X-Gateway-Key`, counts one request against the key's quota, and returns the simple record. A browser request without `email`/`domain` that prefers text/html gets the home page instead.",
      tags: ["check"],
      security: [{ gatewayKey: [] }],
      querystring: CheckInputSchema,
      response: checkingResponses(SimpleRecordSchema, {
        readsBody: false,
        challenges: false,
        html: Type.String(),
      }),
    },
    onRequest: accessHook(deps, "gateway", asksForHomePage),
    onSend: rateLimitHeadersHook(deps),
    handler: async (request, reply) => {
      reply.header("vary", "Accept");
      if (request.servesPage) return reply.type("text/html; charset=utf-8").send(renderHomePage());
      return toSimpleRecord(await runCheck(deps, request, request.query));
    },
  });
}
