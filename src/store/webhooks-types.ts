/**
 * Webhooks and the outbox of their events: the repository's contract and rows, implemented in
 * src/store/webhooks-repository.ts.
 */

/** The events a webhook can subscribe to (docs/webhooks.md). */
export const WEBHOOK_EVENT_TYPES = [
  "domain.blocked",
  "domain.unblocked",
  "job.completed",
  "job.failed",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The events a new webhook subscribes to when none are named. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEventType[] = ["domain.blocked", "domain.unblocked"];

/** A webhook subscription; its secret is shown once, when created. */
export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  createdAt: Date;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** An event claimed for one delivery attempt. */
export interface DueEvent {
  id: string;
  webhookId: string;
  url: string;
  secret: string;
  body: string;
  /** Attempts made before this one. */
  attempts: number;
  createdAt: Date;
}

/** One delivery attempt: the status code, or the error when no answer came. */
export interface DeliveryAttempt {
  attempt: number;
  at: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** An event with its delivery state and attempts. */
export interface Delivery {
  id: string;
  webhookId: string;
  domain: string;
  type: string;
  status: DeliveryStatus;
  createdAt: Date;
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: Date | null;
  attempts: DeliveryAttempt[];
}

/** Webhooks (src/store/webhooks-repository.ts): subscriptions and the outbox of their events. */
export interface WebhooksRepository {
  createWebhook(input: {
    url: string;
    secret: string;
    events: readonly WebhookEventType[];
    now: Date;
  }): Promise<Webhook>;
  listWebhooks(): Promise<Webhook[]>;
  /** Removes a webhook with its events and attempts; whether there was one. */
  removeWebhook(id: string): Promise<boolean>;
  /**
   * Claims due pending events for `holder` until `until` (one conditional update, so each
   * is claimed by one instance at a time): per webhook and domain, only the oldest pending one.
   */
  claimDue(holder: string, now: Date, until: Date, limit: number): Promise<DueEvent[]>;
  /** Records an attempt of an event `holder` claimed, and what comes next: done, another try at `nextAttemptAt`, or failed. */
  finishAttempt(
    eventId: string,
    holder: string,
    attempt: DeliveryAttempt,
    next: { status: DeliveryStatus; nextAttemptAt: Date },
  ): Promise<void>;
  /** Events newest first, of one webhook or all, with their attempts; at most `limit`. */
  deliveries(webhookId: string | null, limit: number): Promise<Delivery[]>;
  /** How many events each webhook has by status. */
  deliveryCounts(): Promise<{ webhookId: string; status: DeliveryStatus; count: number }[]>;
}
