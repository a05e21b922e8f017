/**
 * Managing webhooks, shared by `mailrisk webhooks` and `/admin/webhooks`
 * (docs/webhooks.md): the rules for a subscription and the JSON of webhooks and deliveries.
 */

import { formatTimestamp } from "../core/record.js";
import { parseWebUrl } from "../core/web-url.js";
import type { Delivery, Webhook, WebhookEventType, WebhooksRepository } from "../store/types.js";
import { WEBHOOK_EVENT_TYPES } from "../store/types.js";
import { newWebhookSecret } from "./webhook-signature.js";

export type WebhookInput =
  | { ok: true; url: string; events: WebhookEventType[]; secret: string; generated: boolean }
  | { ok: false; message: string };

/** Checks a subscription: an http(s) URL without credentials, known event types (default both), a secret (default 32 random bytes). */
export function webhookInput(
  url: string,
  events: string | readonly string[] | undefined,
  secret: string | undefined,
): WebhookInput {
  const parsed = parseWebUrl(url);
  if (!parsed.ok) return { ok: false, message: `the webhook URL ${parsed.reason}` };
  const names =
    events === undefined
      ? [...WEBHOOK_EVENT_TYPES]
      : typeof events === "string"
        ? events.split(",")
        : [...events];
  const chosen = [...new Set(names.map((name) => name.trim()).filter(Boolean))];
  const unknown = chosen.filter((name) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(name));
  if (unknown.length > 0 || chosen.length === 0)
    return { ok: false, message: `events are ${WEBHOOK_EVENT_TYPES.join(", ")}; got "${names.join(",")}"` };
  if (secret !== undefined && secret.length < 16)
    return { ok: false, message: "a webhook secret has at least 16 characters" };
  return {
    ok: true,
    url: parsed.url.toString(),
    events: chosen as WebhookEventType[],
    secret: secret ?? newWebhookSecret(),
    generated: secret === undefined,
  };
}

/** An id that names no webhook. */
export class UnknownWebhookError extends Error {
  override name = "UnknownWebhookError";
  constructor(id: string) {
    super(`unknown webhook ${id}`);
  }
}

/** The latest events, of one webhook or all; UnknownWebhookError for an id that names none. */
export async function webhookDeliveries(
  webhooks: Pick<WebhooksRepository, "listWebhooks" | "deliveries">,
  id: string | null,
  limit: number,
): Promise<Delivery[]> {
  if (id !== null && !(await webhooks.listWebhooks()).some((webhook) => webhook.id === id))
    throw new UnknownWebhookError(id);
  return webhooks.deliveries(id, limit);
}

export function webhookJson(webhook: Webhook) {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    created_at: formatTimestamp(webhook.createdAt),
  };
}

export function deliveryJson(delivery: Delivery) {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    domain: delivery.domain,
    type: delivery.type,
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
