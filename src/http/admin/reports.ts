/**
 * `/admin/reports` (docs/api.md §10): the operator's queue of reports of wrong answers,
 * each beside today's answer for its domain with its evidence, and the review:
 * accepting sets the matching allow or deny override (every server takes it within a
 * second, this one before the answer), rejecting closes the report. `mailrisk reports`
 * does the same.
 */
import { Type } from "@fastify/type-provider-typebox";
import { EvidenceSchema } from "../../core/evidence.js";
import {
  MAX_NOTE_LENGTH,
  MAX_REPORTS_SHOWN,
  queueEntryJson,
  REPORTS_SHOWN,
  reportQueue,
  reviewJson,
  reviewReport,
} from "../../service/reports.js";
import type { ReportStatus } from "../../store/types.js";
import { PROBLEM_CONTENT_TYPE } from "../problems.js";
import { ReportSchema } from "../routes/reports.js";
import { nullable, ProblemSchema } from "../schemas.js";
import type { TypedApp } from "../typed-app.js";
import type { AdminDeps } from "./deps.js";
import { ADMIN_ROUTE, adminResponses, limitOf, limitQuery } from "./schemas.js";

const ReviewerFields = {
  key_id: Type.String({ description: "The key that filed it." }),
  review_note: nullable<string>("string", { description: "The operator's note." }),
};

export const QueueEntrySchema = Type.Object(
  {
    ...ReportSchema.properties,
    ...ReviewerFields,
    reporters: Type.Integer({
      description:
        "How many distinct keys have a report of this domain with this status (the queue's order).",
    }),
    today: Type.Object(
      {
        answer: Type.Union([Type.Literal("allow"), Type.Literal("block")]),
        valid: Type.Boolean(),
        risk: Type.Integer(),
        text: Type.String(),
        reason: Type.String(),
        evidence: EvidenceSchema,
      },
      { description: "Today's answer for the domain, with its evidence." },
    ),
  },
  { description: "A report in the operator's queue." },
);

export const ReviewSchema = Type.Object(
  {
    ...ReportSchema.properties,
    ...ReviewerFields,
    closed: Type.Array(Type.String(), {
      description: "Every report closed with it: the open reports of the domain expecting the same answer.",
    }),
    override: Type.Union(
      [
        Type.Object({
          id: Type.String({ description: "`domain:<domain>`, as the evidence names it." }),
          action: Type.String(),
          note: nullable<string>("string"),
        }),
        Type.Null(),
      ],
      { description: "The override accepting set; null for a rejection." },
    ),
  },
  { description: "A reviewed report." },
);

const QueueQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal("open"), Type.Literal("accepted"), Type.Literal("rejected")], {
      description: "Default open.",
    }),
  ),
  limit: limitQuery(MAX_REPORTS_SHOWN, REPORTS_SHOWN),
});

const ReviewBody = Type.Object({
  note: Type.Optional(nullable<string>("string", { maxLength: MAX_NOTE_LENGTH })),
});

const ReportIdParams = Type.Object({ id: Type.String() });

function problem(description: string) {
  return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } } };
}

function reviewResponses() {
  return {
    200: { description: "The reviewed report.", content: { "application/json": { schema: ReviewSchema } } },
    400: problem("Invalid body (invalid_body)."),
    401: problem("Missing or incorrect admin token (missing_admin_token, invalid_admin_token)."),
    404: problem("No report of that id (unknown_report)."),
    409: problem("The report was accepted or rejected already (report_not_open)."),
    500: problem("Unexpected failure (internal_error)."),
    503: problem("Database unreachable (database_unavailable)."),
  };
}

export function adminReportRoutes(app: TypedApp, { store, clock, settle, checker }: AdminDeps): void {
  app.get(
    "/admin/reports",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "The reports of wrong answers, each beside today's answer and its evidence",
        description:
          "Open reports first by how many distinct keys reported the same domain, then oldest first; accepted and rejected ones newest review first.",
        querystring: QueueQuery,
        response: adminResponses(200, Type.Array(QueueEntrySchema), [400]),
      },
    },
    async (request) => {
      const status: ReportStatus = request.query.status ?? "open";
      const limit = limitOf(request.query.limit, MAX_REPORTS_SHOWN, REPORTS_SHOWN);
      return (await reportQueue({ reports: store.reports, checker }, status, limit)).map(queueEntryJson);
    },
  );

  for (const decision of ["accept", "reject"] as const) {
    app.post(
      `/admin/reports/:id/${decision}`,
      {
        schema: {
          ...ADMIN_ROUTE,
          summary:
            decision === "accept"
              ? "Accept a report: set the allow or deny override it asks for"
              : "Reject a report",
          description:
            decision === "accept"
              ? "Sets the domain's allow (expected allow) or deny (expected block) override, with the report's id in its note, and closes the report and every open report of the domain expecting the same answer. The next answer on this server reflects it, on every other process and instance within a second."
              : "Closes the report and every open report of the domain expecting the same answer; the answer stays as it is.",
          params: ReportIdParams,
          body: ReviewBody,
          response: reviewResponses(),
        },
        // A review without a body is one without a note.
        preValidation: (request, _reply, done) => {
          request.body ??= {};
          done();
        },
      },
      async (request) => {
        const review = await reviewReport(
          { store, clock },
          request.params.id,
          decision,
          request.body?.note ?? null,
        );
        if (review.override) await settle();
        return reviewJson(review);
      },
    );
  }
}
