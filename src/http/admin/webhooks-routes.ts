/** `/admin/webhooks` (docs/api.md "Administration"): adapts src/operator/webhooks.ts. */
import { Type } from "@fastify/type-provider-typebox";
import { ADMIN_TOKEN_ACTOR } from "../../operator/audit.js";
import { limitOf } from "../../operator/refusal.js";
import {
  addWebhook,
  CreatedWebhookSchema,
  CreateWebhookBody,
  DELIVERIES_SHOWN,
  DeliverySchema,
  deliveries,
  listWebhooks,
  MAX_DELIVERIES_SHOWN,
  removeWebhook,
  WebhookSchema,
} from "../../operator/webhooks.js";
import type { TypedApp } from "../typed-app.js";
import { adminRoute, limitQuery } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

export function adminWebhookRoutes(app: TypedApp, { store, clock }: AdminDeps): void {
  app.get(
    "/admin/webhooks",
    adminRoute("List webhooks, never their secrets", Type.Array(WebhookSchema)),
    () => listWebhooks(store),
  );

  app.post(
    "/admin/webhooks",
    adminRoute(
      {
        summary: "Add a webhook for block status flips of watched domains",
        description:
          "Flips of watched domains (checked within WEBHOOK_WATCH_DAYS) are POSTed signed to the URL, retried for 24 h (docs/webhooks.md). Without `secret` one is generated and answered once.",
        body: CreateWebhookBody,
      },
      CreatedWebhookSchema,
      [400],
      201,
    ),
    (request) => addWebhook(store, request.body, clock(), ADMIN_TOKEN_ACTOR),
  );

  app.delete(
    "/admin/webhooks/:id",
    adminRoute(
      { summary: "Remove a webhook with its events", params: Type.Object({ id: Type.String() }) },
      Type.Object({ removed: Type.Boolean({ description: "Whether there was a webhook to remove." }) }),
    ),
    (request) => removeWebhook(store, request.params.id, ADMIN_TOKEN_ACTOR),
  );

  app.get(
    "/admin/webhooks/deliveries",
    adminRoute(
      {
        summary: "The latest events with their attempts, status codes and next try",
        querystring: Type.Object({
          webhook: Type.Optional(Type.String({ description: "One webhook's events only." })),
          limit: limitQuery(MAX_DELIVERIES_SHOWN, DELIVERIES_SHOWN),
        }),
      },
      Type.Array(DeliverySchema),
      [400, 404],
    ),
    (request) => deliveries(store, request.query.webhook ?? null, limitOf(request.query.limit)),
  );
}
