/** `/admin/jobs` (docs/jobs.md): every key's list jobs; adapts src/operator/jobs.ts. */
import { Type } from "@fastify/type-provider-typebox";
import { ADMIN_TOKEN_ACTOR } from "../../operator/audit.js";
import { cancelJob, JobListSchema, JobSchema, listJobs, OPERATOR, showJob } from "../../operator/jobs.js";
import type { TypedApp } from "../typed-app.js";
import { adminRoute } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

const JobParams = Type.Object({ id: Type.String() });

export function adminJobRoutes(app: TypedApp, { store, clock, jobRetentionSeconds }: AdminDeps): void {
  app.get("/admin/jobs", adminRoute("Every key's list jobs, newest first", JobListSchema), () =>
    listJobs(store, OPERATOR),
  );

  app.get(
    "/admin/jobs/:id",
    adminRoute({ summary: "A list job's progress", params: JobParams }, JobSchema, [404]),
    (request) => showJob(store, OPERATOR, request.params.id),
  );

  app.post(
    "/admin/jobs/:id/cancel",
    adminRoute(
      {
        summary: "Cancel a queued or running list job (an ended one is answered as it is)",
        description: "The units of the items not checked are given back to the job's key.",
        params: JobParams,
      },
      JobSchema,
      [404],
    ),
    (request) =>
      cancelJob(
        store,
        OPERATOR,
        request.params.id,
        { now: clock(), retentionMs: jobRetentionSeconds * 1000 },
        { actor: ADMIN_TOKEN_ACTOR, store },
      ),
  );
}
