/**
 * `POST /v2/` (and `/v2`) — the direct route (docs/api.md "Routes"): key in
 * `Authorization: Bearer`, input as a form, multipart or JSON body field, the full
 * record on success.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import type { CheckingDeps } from "../checking-deps.js";
import { replayReadBody } from "../checking-fast-path.js";
import { explainedAnswers, runCheck } from "../run-check.js";
import {
  CheckInputSchema,
  CheckRecordSchema,
  checkingResponses,
  ExplainableRecordSchema,
  explains,
} from "../schemas.js";
import type { TypedApp } from "../typed-app.js";

/** A POST without any body reads as an empty form: its answer is `missing_input`, not a schema error. */
function emptyBodyAsForm(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.body === undefined) request.body = {};
  done();
}

/** Declared inside the checking plugin, which authenticates, counts and adds the rate-limit headers. */
export function directCheckRoute(app: TypedApp, deps: CheckingDeps): void {
  const explained = explainedAnswers();
  const answer = deps.answers.direct;
  app.route({
    method: "POST",
    url: "/v2/",
    config: { credentials: "bearer", publishable: true },
    schema: {
      summary: "Check a domain or email address (direct route, full record)",
      description:
        "Authenticates with `Authorization: Bearer KEY` (KEY plain or base64-encoded), counts one request against the key's quota, and returns the full record; with `explain: true` the record ends with `evidence`, the evidence behind its verdict. Also served at `/v2`.",
      tags: ["check"],
      security: [{ bearerKey: [] }],
      consumes: ["application/x-www-form-urlencoded", "multipart/form-data", "application/json"],
      body: CheckInputSchema,
      response: checkingResponses(ExplainableRecordSchema, { readsBody: true, challenges: true }),
    },
    // A body the fast path read before handing the request over (checking-fast-path.ts).
    preParsing: replayReadBody,
    preValidation: emptyBodyAsForm,
    handler: async (request, reply) => {
      const result = await runCheck(deps, request, request.body);
      if (!explains(request.body.explain)) return answer.send(reply, result.record);
      return reply.send(explained(reply, CheckRecordSchema, result.record, result));
    },
  });
}
