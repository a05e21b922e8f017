/**
 * `/admin/webhooks` (docs/api.md §10, docs/webhooks.md): subscriptions to block status
 * flips — list, add, remove — and the latest deliveries. The same as `mailrisk webhooks`.
 */
import { Type } from "@fastify/type-provider-typebox";
import { deliveryJson, webhookInput, webhookJson } from "../../service/webhooks.js";
import { WEBHOOK_EVENT_TYPES } from "../../store/types.js";
import { HttpProblem } from "../problems.js";
import { nullable, Timestamp } from "../schemas.js";
import type { TypedApp } from "../typed-app.js";
import type { AdminDeps } from "./deps.js";
import { ADMIN_ROUTE, adminResponses, limitOf, limitQuery } from "./schemas.js";

const DELIVERIES_SHOWN = 100;
const MAX_DELIVERIES_SHOWN = 1000;

const EventType = Type.Union(WEBHOOK_EVENT_TYPES.map((type) => Type.Literal(type)));

const WebhookSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(EventType),
  created_at: Timestamp,
});

const CreatedWebhookSchema = Type.Object({
  ...WebhookSchema.properties,
  secret: Type.Optional(
    Type.String({ description: "The generated signing secret, shown only in this answer." }),
  ),
});

const CreateWebhookBody = Type.Object({
  url: Type.String({ maxLength: 2048, description: "An http or https URL; redirects are never followed." }),
  events: Type.Optional(Type.Array(EventType, { minItems: 1, description: "Default: both." })),
  secret: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 256,
      description: "Default: 32 random bytes, hex, answered once.",
    }),
  ),
});

const DeliverySchema = Type.Object({
  id: Type.String({ description: "The event id (`Mailrisk-Event-Id`), the same on every attempt." }),
  webhook_id: Type.String(),
  domain: Type.String(),
  type: EventType,
  status: Type.Union([Type.Literal("pending"), Type.Literal("delivered"), Type.Literal("failed")]),
  created_at: Timestamp,
  next_attempt_at: nullable<string>("string", {
    format: "date-time",
    description: "Null once delivered or failed.",
  }),
  attempts: Type.Array(
    Type.Object({
      attempt: Type.Integer(),
      at: Timestamp,
      status_code: nullable<number>("integer", { description: "Null when no answer came." }),
      error: nullable<string>("string", { description: "`timeout`, or why the connection failed." }),
      duration_ms: Type.Integer(),
    }),
  ),
});

export function adminWebhookRoutes(app: TypedApp, { store, clock }: AdminDeps): void {
  app.get(
    "/admin/webhooks",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "List webhooks, never their secrets",
        response: adminResponses(200, Type.Array(WebhookSchema), []),
      },
    },
    async () => (await store.webhooks.listWebhooks()).map(webhookJson),
  );

  app.post(
    "/admin/webhooks",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Add a webhook for block status flips of watched domains",
        description:
          "Flips of watched domains (checked within WEBHOOK_WATCH_DAYS) are POSTed signed to the URL, retried for 24 h (docs/webhooks.md). Without `secret` one is generated and answered once.",
        body: CreateWebhookBody,
        response: adminResponses(201, CreatedWebhookSchema, [400]),
      },
    },
    async (request, reply) => {
      const input = webhookInput(request.body.url, request.body.events, request.body.secret);
      if (!input.ok) throw new HttpProblem("invalid_body", `${input.message}.`);
      const webhook = await store.webhooks.createWebhook({
        url: input.url,
        secret: input.secret,
        events: input.events,
        now: clock(),
      });
      reply.code(201);
      return { ...webhookJson(webhook), ...(input.generated ? { secret: input.secret } : {}) };
    },
  );

  app.delete(
    "/admin/webhooks/:id",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Remove a webhook with its events",
        params: Type.Object({ id: Type.String() }),
        response: adminResponses(
          200,
          Type.Object({ removed: Type.Boolean({ description: "Whether there was a webhook to remove." }) }),
          [],
        ),
      },
    },
    async (request) => ({ removed: await store.webhooks.removeWebhook(request.params.id) }),
  );

  app.get(
    "/admin/webhooks/deliveries",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "The latest events with their attempts, status codes and next try",
        querystring: Type.Object({
          webhook: Type.Optional(Type.String({ description: "One webhook's events only." })),
          limit: limitQuery(MAX_DELIVERIES_SHOWN, DELIVERIES_SHOWN),
        }),
        response: adminResponses(200, Type.Array(DeliverySchema), [400]),
      },
    },
    async (request) =>
      (
        await store.webhooks.deliveries(
          request.query.webhook ?? null,
          limitOf(request.query.limit, MAX_DELIVERIES_SHOWN, DELIVERIES_SHOWN),
        )
      ).map(deliveryJson),
  );
}
