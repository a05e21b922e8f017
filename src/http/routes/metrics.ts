/**
 * `GET /metrics` — Prometheus text format. With METRICS_TOKEN it takes
 * `Authorization: Bearer <METRICS_TOKEN>` (401 `missing_metrics_token` /
 * `invalid_metrics_token` otherwise), compared like the admin token. A publishable key
 * is refused (403 `publishable_key_not_allowed`), open route or not.
 */
import { bearerTokenHook } from "../bearer-token.js";
import { refusePublishableKey } from "../publishable-keys.js";
import type { TypedApp } from "../typed-app.js";

/** What /metrics serves: one instance's registry, or a cluster's primary asking its workers. */
export interface MetricsSource {
  contentType: string;
  metrics(): Promise<string>;
}

/** `token`: METRICS_TOKEN, or null for an open route. */
export function metricsRoute(app: TypedApp, source: MetricsSource, token: string | null = null): void {
  const onRequest =
    token === null
      ? [refusePublishableKey]
      : [
          refusePublishableKey,
          bearerTokenHook({
            token,
            realm: "mailrisk-metrics",
            missing: {
              code: "missing_metrics_token",
              detail: "Send the metrics token in an Authorization: Bearer header.",
            },
            invalid: { code: "invalid_metrics_token", detail: "The metrics token is incorrect." },
          }),
        ];
  app.get("/metrics", { schema: { hide: true }, onRequest }, async (_request, reply) => {
    reply.type(source.contentType);
    return source.metrics();
  });
}
