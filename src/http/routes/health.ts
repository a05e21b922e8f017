/** `GET /healthz` (the process is alive) and `GET /readyz` (the database is reachable). */
import { Type } from "@fastify/type-provider-typebox";
import { PROBLEM_CONTENT_TYPE } from "../problems.js";
import type { TypedApp } from "../route-deps.js";
import { ProblemSchema, StatusSchema } from "../schemas.js";

/** `/readyz` fails with the store's `StoreUnavailableError`, which the error handler answers with 503. */
export function healthRoutes(app: TypedApp, store: { ping(): Promise<void> }): void {
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
    async () => {
      await store.ping();
      return { status: "ok" as const };
    },
  );
}
