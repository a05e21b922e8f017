/**
 * `/admin/reports` (docs/api.md "Administration"): the admin API's adapter of src/operator/reports.ts.
 * Accepting holds on this server before the answer, on every other within a second.
 */
import { Type } from "@fastify/type-provider-typebox";
import { ADMIN_TOKEN_ACTOR } from "../../operator/audit.js";
import { limitOf } from "../../operator/refusal.js";
import {
  MAX_REPORTS_SHOWN,
  QueueEntrySchema,
  REPORTS_SHOWN,
  ReviewBody,
  ReviewSchema,
  reportQueue,
  reviewReport,
} from "../../operator/reports.js";
import type { TypedApp } from "../typed-app.js";
import { adminRoute, limitQuery } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

const QueueQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal("open"), Type.Literal("accepted"), Type.Literal("rejected")], {
      description: "Default open.",
    }),
  ),
  limit: limitQuery(MAX_REPORTS_SHOWN, REPORTS_SHOWN),
});

export function adminReportRoutes(app: TypedApp, { store, clock, checker }: AdminDeps): void {
  app.get(
    "/admin/reports",
    adminRoute(
      {
        summary: "The reports of wrong answers, each beside today's answer and its evidence",
        description:
          "Open reports first by how many distinct keys reported the same domain, then oldest first; accepted and rejected ones newest review first.",
        querystring: QueueQuery,
      },
      Type.Array(QueueEntrySchema),
      [400],
    ),
    (request) =>
      reportQueue(
        { reports: store.reports, checker },
        request.query.status ?? "open",
        limitOf(request.query.limit),
      ),
  );

  for (const decision of ["accept", "reject"] as const) {
    app.post(
      `/admin/reports/:id/${decision}`,
      {
        ...adminRoute(
          {
            summary:
              decision === "accept"
                ? "Accept a report: set the allow or deny override it asks for"
                : "Reject a report",
            description:
              decision === "accept"
                ? "Sets the domain's allow (expected allow) or deny (expected block) override, with the report's id in its note, and closes the report and every open report of the domain expecting the same answer. The next answer on this server reflects it, on every other process and instance within a second."
                : "Closes the report and every open report of the domain expecting the same answer; the answer stays as it is.",
            params: Type.Object({ id: Type.String() }),
            body: ReviewBody,
          },
          ReviewSchema,
          [400, 404, 409],
        ),
        // A review without a body is one without a note.
        preValidation: (request, _reply, done) => {
          request.body ??= {};
          done();
        },
      },
      (request) =>
        reviewReport(
          { store, clock },
          request.params.id,
          decision,
          request.body?.note ?? null,
          ADMIN_TOKEN_ACTOR,
        ),
    );
  }
}
