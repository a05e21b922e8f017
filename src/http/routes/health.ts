/**
 * `GET /healthz` (the process is alive) and `GET /readyz` (the database is reachable and
 * the DNS resolver tells the truth). A failing `/readyz` names the component in its code:
 * `database_unavailable` or `dns_unavailable`.
 */
import { Type } from "@fastify/type-provider-typebox";
import type { ResolverHealth } from "../../service/checking/resolver-health.js";
import { HttpProblem, PROBLEM_CONTENT_TYPE, UNAVAILABLE_RETRY_AFTER_SECONDS } from "../http-problem.js";
import { ProblemSchema, StatusSchema } from "../schemas.js";
import type { TypedApp } from "../typed-app.js";

const RESOLVER_TROUBLE = {
  broken: "says that big providers' domains do not exist",
  unreachable: "does not answer",
} as const;

/** `/readyz` fails with the store's `StoreUnavailableError` (answered 503) or a `dns_unavailable` problem. */
export function healthRoutes(
  app: TypedApp,
  store: { ping(): Promise<void> },
  resolverHealth: ResolverHealth | undefined,
): void {
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
        summary: "Readiness: the database is reachable and the DNS resolver tells the truth",
        tags: ["ops"],
        response: {
          200: StatusSchema,
          503: {
            description:
              "Database unreachable (database_unavailable) or DNS resolver broken (dns_unavailable).",
            headers: { "retry-after": Type.Integer() },
            content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
          },
        },
      },
    },
    async () => {
      await store.ping();
      const state = await resolverHealth?.state();
      if (state === "broken" || state === "unreachable") {
        const canaries = Object.entries(resolverHealth?.latest()?.canaries ?? {})
          .map(([domain, answer]) => `${domain}: ${answer}`)
          .join(", ");
        throw new HttpProblem(
          "dns_unavailable",
          `The DNS resolver ${RESOLVER_TROUBLE[state]} (MX of ${canaries}); checks answer "DNS failure" until it recovers.`,
          { "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
        );
      }
      return { status: "ok" as const };
    },
  );
}
