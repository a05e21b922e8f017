/**
 * `POST /v2/reports` and `GET /v2/reports/{id}` (docs/api.md "Reports of wrong answers"): a key reports an
 * answer it expected otherwise, and reads what became of its report. Declared inside the
 * checking plugin with `units: 0`: authenticated like `POST /v2/` and carrying the
 * rate-limit headers, but never counted against the quota; a key whose quota is used up
 * files none (429). Reports have a limit of their own (src/service/checking/report-filing.ts).
 */
import { Type } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import {
  fileReport,
  MAX_NOTE_LENGTH,
  ReportSchema,
  reportJson,
  reportOfKey,
} from "../../service/checking/report-filing.js";
import type { ReportsRepository } from "../../store/index.js";
import type { CheckingDeps } from "../checking-deps.js";
import { HttpProblem } from "../http-problem.js";
import { problemFor, sendProblem } from "../problem-response.js";
import { selectInput } from "../run-check.js";
import { CheckInputSchema, checkingResponses, noteOptions } from "../schemas.js";
import type { TypedApp } from "../typed-app.js";

/** The slice of the store the report routes use. */
export type ReportsGate = Pick<ReportsRepository, "fileReport" | "getReport">;

const ReportBody = Type.Object({
  email: CheckInputSchema.properties.email,
  domain: CheckInputSchema.properties.domain,
  expected: Type.Union([Type.Literal("allow"), Type.Literal("block")], {
    description: "The answer you expected: allow or block; it must differ from today's answer.",
  }),
  note: Type.Optional(
    Type.String({ ...noteOptions(MAX_NOTE_LENGTH), description: "Why, for the operator." }),
  ),
});

const ReportParams = Type.Object({ id: Type.String() });

/** A POST without any body reads as an empty form. */
function emptyBodyAsForm(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.body === undefined) request.body = {};
  done();
}

/** The route's own wording of body problems: `expected` and `note`; the input fields as everywhere. */
function bodyProblem(error: unknown): HttpProblem | undefined {
  const validation = (error as { validation?: { instancePath: string; params?: unknown }[] } | null)
    ?.validation;
  if (!validation) return undefined;
  const [first] = validation;
  const path = first?.instancePath ?? "";
  if (path.startsWith("/email") || path.startsWith("/domain")) return undefined;
  if (path.startsWith("/note")) {
    return new HttpProblem(
      "invalid_body",
      `\`note\` is text of at most ${MAX_NOTE_LENGTH} characters, without control characters.`,
    );
  }
  return new HttpProblem(
    "invalid_body",
    "Send `domain` or `email`, and `expected`: allow or block (and a `note` if you like).",
  );
}

function responses() {
  const base = checkingResponses(ReportSchema, { readsBody: true, challenges: true });
  const {
    200: ok,
    400: bad,
    401: unauthorized,
    413: tooLarge,
    415: unsupported,
    500: failed,
    503: down,
  } = base;
  return {
    filed: {
      202: {
        ...ok,
        description:
          "The report, open; the key's open report of the domain when it has one. Counts nothing against the quota.",
      },
      400: {
        ...bad,
        description:
          "Missing or invalid input or body (missing_input, input_too_long, invalid_email, invalid_domain, invalid_body).",
      },
      401: unauthorized,
      413: tooLarge,
      415: unsupported,
      422: { ...bad, description: "`expected` is today's answer already (report_matches_answer)." },
      429: {
        ...base[429],
        description:
          "The key's quota is used up (quota_exceeded), or it filed its daily limit of reports, 100 or its plan's quota per period when smaller (too_many_reports); Retry-After says when one fits.",
      },
      500: failed,
      503: down,
    },
    read: {
      200: { ...ok, description: "The report." },
      401: unauthorized,
      404: { ...bad, description: "No report of that id filed by this key (unknown_report)." },
      500: failed,
      503: down,
    },
  };
}

/** Declared inside the checking plugin's access scope (key, rate-limit headers; `units: 0` counts nothing). */
export function reportRoutes(app: TypedApp, deps: CheckingDeps & { reports: ReportsGate }): void {
  const { filed, read } = responses();
  app.route({
    method: "POST",
    url: "/v2/reports",
    config: { credentials: "bearer", units: 0, needsQuotaLeft: true },
    schema: {
      summary: "Report an answer you expected otherwise (not counted)",
      description:
        "Authenticates like `POST /v2/` and counts nothing against the quota, but a key whose quota is used up is refused (429 quota_exceeded). Takes `domain` or `email` (only its domain is kept) and `expected`, `allow` or `block`, which must differ from today's answer; the operator reviews it (`mailrisk reports`, `/admin/reports`). A key's second open report of a domain returns the first. At most 100 reports per key in any 24 hours, or the plan's quota per period when that is smaller.",
      tags: ["check"],
      security: [{ bearerKey: [] }],
      consumes: ["application/x-www-form-urlencoded", "multipart/form-data", "application/json"],
      body: ReportBody,
      response: filed,
    },
    preValidation: emptyBodyAsForm,
    errorHandler: (error, request, reply) =>
      sendProblem(reply, bodyProblem(error) ?? problemFor(error, request.log)),
    handler: async (request, reply) => {
      const caller = request.caller;
      if (!caller) throw new Error("POST /v2/reports ran without the access hook");
      const parsed = selectInput(request.body, deps);
      if (!parsed.ok) throw new HttpProblem(parsed.problem.code, parsed.problem.detail);
      request.checkedDomain = parsed.input.domain;
      const { report } = await fileReport(
        { reports: deps.reports, checker: deps.checker, clock: deps.clock },
        { id: caller.key.id, planQuota: caller.quota.limit },
        parsed.input,
        request.body.expected,
        request.body.note ?? null,
      );
      reply.code(202);
      return reportJson(report);
    },
  });

  app.route({
    method: "GET",
    url: "/v2/reports/:id",
    config: { credentials: "bearer", units: 0 },
    schema: {
      summary: "Read a report this key filed (not counted)",
      description:
        "Authenticates like `POST /v2/` and counts nothing. Answers the report's status; a report another key filed is answered like an unknown one (404 unknown_report).",
      tags: ["check"],
      security: [{ bearerKey: [] }],
      params: ReportParams,
      response: read,
    },
    handler: async (request) => {
      const caller = request.caller;
      if (!caller) throw new Error("GET /v2/reports/{id} ran without the access hook");
      return reportJson(await reportOfKey(deps.reports, caller.key.id, request.params.id));
    },
  });
}
