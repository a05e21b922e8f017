/** `GET /metrics` — Prometheus text format of this instance's registry. */
import type { HttpMetrics } from "../metrics.js";
import type { TypedApp } from "../route-deps.js";

export function metricsRoute(app: TypedApp, metrics: HttpMetrics): void {
  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
