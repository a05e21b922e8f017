/** `GET /healthz` (the process is alive) and `GET /readyz` (the database is reachable). */
import { Type } from "@fastify/type-provider-typebox";
import { databaseUnavailable, PROBLEM_CONTENT_TYPE } from "../problems.js";
import type { RouteDeps, TypedApp } from "../route-deps.js";
import { ProblemSchema, StatusSchema } from "../schemas.js";

export function healthRoutes(app: TypedApp, deps: Pick<RouteDeps, "store">): void {
  app.get(
    "/healthz",
    {
      schema: {
        summary: "Liveness: the process answers",
        tags: ["ops"],
        response: { 200: StatusSchema },
      },
    },
    async () => ({ status: "ok" as const }),
  );

  app.get(
    "/readyz",
    {
      schema: {
        summary: "Readiness: the database is reachable",
        tags: ["ops"],
        response: {
          200: StatusSchema,
          503: {
            description: "Database unreachable (database_unavailable).",
            headers: { "retry-after": Type.Integer() },
            content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
          },
        },
      },
    },
    async (request) => {
      try {
        await deps.store.ping();
      } catch (error) {
        request.log.warn({ err: error }, "database unreachable");
        throw databaseUnavailable();
      }
      return { status: "ok" as const };
    },
  );
}
