/**
 * Webhooks (docs/webhooks.md): the operator's subscriptions to block status flips —
 * list, add, remove — and the latest deliveries with their attempts.
 */
import { type Static, Type } from "typebox";
import { formatTimestamp } from "../core/record.js";
import { nullable, Timestamp } from "../core/schema-types.js";
import { parseWebUrl } from "../core/web-url.js";
import { newWebhookSecret } from "../service/webhooks/webhook-signature.js";
import type { Delivery, Store, Webhook, WebhookEventType } from "../store/index.js";
import { DEFAULT_WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES } from "../store/webhooks-types.js";
import { type Actor, audited } from "./audit.js";
import { Refusal, shownLimit } from "./refusal.js";

/** Deliveries shown by default, and at most. */
export const DELIVERIES_SHOWN = 100;
export const MAX_DELIVERIES_SHOWN = 1000;

const EventType = Type.Unsafe<WebhookEventType>(
  Type.Union(WEBHOOK_EVENT_TYPES.map((type) => Type.Literal(type))),
);

export const WebhookSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(EventType),
  created_at: Timestamp,
});
export type WebhookJson = Static<typeof WebhookSchema>;

export const CreatedWebhookSchema = Type.Object({
  ...WebhookSchema.properties,
  secret: Type.Optional(
    Type.String({ description: "The generated signing secret, shown only in this answer." }),
  ),
});
type CreatedWebhook = Static<typeof CreatedWebhookSchema>;

export const CreateWebhookBody = Type.Object({
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

export const DeliverySchema = Type.Object({
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
export type DeliveryJson = Static<typeof DeliverySchema>;

type WebhookStore = Pick<Store, "webhooks">;

function webhookJson(webhook: Webhook): WebhookJson {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    created_at: formatTimestamp(webhook.createdAt),
  };
}

function deliveryJson(delivery: Delivery): DeliveryJson {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    domain: delivery.domain,
    type: delivery.type as WebhookEventType,
    status: delivery.status,
    created_at: formatTimestamp(delivery.createdAt),
    next_attempt_at: delivery.nextAttemptAt ? formatTimestamp(delivery.nextAttemptAt) : null,
    attempts: delivery.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      at: formatTimestamp(attempt.at),
      status_code: attempt.statusCode,
      error: attempt.error,
      duration_ms: attempt.durationMs,
    })),
  };
}

/**
 * An http(s) URL, known event types (default the two domain events; the CLI writes them comma-separated), a
 * secret of 16 characters or more.
 */
function subscription(url: string, events: string | readonly string[] | undefined) {
  const parsed = parseWebUrl(url);
  if (!parsed.ok) throw new Refusal("invalid_body", `the webhook URL ${parsed.reason}`);
  const names =
    events === undefined
      ? [...DEFAULT_WEBHOOK_EVENTS]
      : typeof events === "string"
        ? events.split(",")
        : [...events];
  const chosen = [...new Set(names.map((name) => name.trim()).filter(Boolean))];
  const known = WEBHOOK_EVENT_TYPES as readonly string[];
  if (chosen.length === 0 || chosen.some((name) => !known.includes(name)))
    throw new Refusal(
      "invalid_body",
      `events are ${WEBHOOK_EVENT_TYPES.join(", ")}; got "${names.join(",")}"`,
    );
  return { url: parsed.url.toString(), events: chosen as WebhookEventType[] };
}

export async function listWebhooks(store: WebhookStore): Promise<WebhookJson[]> {
  return (await store.webhooks.listWebhooks()).map(webhookJson);
}

/** Adds a webhook; a generated secret is in this answer only. */
export async function addWebhook(
  store: Pick<Store, "transaction">,
  body: { url: string; events?: string | readonly string[] | undefined; secret?: string | undefined },
  now: Date,
  actor: Actor,
): Promise<CreatedWebhook> {
  const { url, events } = subscription(body.url, body.events);
  if (body.secret !== undefined && body.secret.length < 16)
    throw new Refusal("invalid_body", "a webhook secret has at least 16 characters");
  const secret = body.secret ?? newWebhookSecret();
  const webhook = await audited(
    store,
    actor,
    async (trx) => webhookJson(await trx.webhooks.createWebhook({ url, secret, events, now })),
    ({ id }) => ({ action: "webhook.add", entity: { kind: "webhook", id }, detail: { url, events } }),
  );
  return body.secret === undefined ? { ...webhook, secret } : webhook;
}

/** Removes a webhook with its events; whether there was one. */
export function removeWebhook(
  store: Pick<Store, "transaction">,
  id: string,
  actor: Actor,
): Promise<{ removed: boolean }> {
  return audited(
    store,
    actor,
    async (trx) => ({ removed: await trx.webhooks.removeWebhook(id) }),
    ({ removed }) => (removed ? { action: "webhook.remove", entity: { kind: "webhook", id } } : undefined),
  );
}

/** The latest events, of one webhook or all, newest first; `unknown_webhook` for an id that names none. */
export async function deliveries(
  store: WebhookStore,
  webhookId: string | null,
  limit?: number,
): Promise<DeliveryJson[]> {
  const shown = shownLimit(limit, DELIVERIES_SHOWN, MAX_DELIVERIES_SHOWN);
  if (webhookId !== null && !(await store.webhooks.listWebhooks()).some((w) => w.id === webhookId))
    throw new Refusal("unknown_webhook", `unknown webhook ${webhookId}`);
  return (await store.webhooks.deliveries(webhookId, shown)).map(deliveryJson);
}
