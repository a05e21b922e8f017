/**
 * Delivers the outbox of webhook events (docs/webhooks.md): every `pollMs` this server
 * claims due events in the database (one instance per attempt), POSTs each signed, with
 * no redirect followed and a deadline, records the attempt, and schedules the next try
 * with exponential back-off until the event is `giveUpMs` old, when it is marked failed.
 */
import { DAY_MS } from "../../core/time.js";
import type { DeliveryStatus, DueEvent, WebhooksRepository } from "../../store/index.js";
import { PeriodicTask } from "../shared/periodic-task.js";
import { signWebhook } from "./webhook-signature.js";

export interface DeliveryTiming {
  /** How often the outbox is read. */
  pollMs: number;
  /** A request without an answer within this fails. */
  timeoutMs: number;
  /** The wait after the first failure, doubled after each. */
  firstRetryMs: number;
  maxRetryMs: number;
  /** An event not delivered this long after it was raised is marked failed. */
  giveUpMs: number;
  /** How long a claim holds (longer than a request may take). */
  claimMs: number;
  /** Events claimed at a time. */
  batch: number;
}

export const DELIVERY_TIMING: DeliveryTiming = {
  pollMs: 500,
  timeoutMs: 10_000,
  firstRetryMs: 10_000,
  maxRetryMs: 3_600_000,
  giveUpMs: DAY_MS,
  claimMs: 30_000,
  batch: 20,
};

/** The wait before attempt `failed + 1` after `failed` failures: 10 s doubling, capped. */
export function retryDelayMs(
  failed: number,
  timing: Pick<DeliveryTiming, "firstRetryMs" | "maxRetryMs">,
): number {
  return Math.min(timing.firstRetryMs * 2 ** Math.max(0, failed - 1), timing.maxRetryMs);
}

export interface WebhookDeliveryOptions {
  webhooks: Pick<WebhooksRepository, "claimDue" | "finishAttempt" | "deliveryCounts">;
  /** Names this instance in claims. */
  holder: string;
  clock?: () => Date;
  /** Test overrides of DELIVERY_TIMING. */
  timing?: Partial<DeliveryTiming>;
  onError?: (error: unknown) => void;
  /** Told of every attempt that failed. */
  onFailedAttempt?: (event: DueEvent, failure: string, next: DeliveryStatus) => void;
}

/** Counts by webhook and status, for the metrics. */
export type DeliveryCounts = readonly { webhookId: string; status: DeliveryStatus; count: number }[];

export class WebhookDelivery {
  private readonly timing: DeliveryTiming;
  private readonly clock: () => Date;
  private readonly polling: PeriodicTask;
  private countsRead = 0;
  private latestCounts: DeliveryCounts = [];

  constructor(private readonly options: WebhookDeliveryOptions) {
    this.timing = { ...DELIVERY_TIMING, ...options.timing };
    this.clock = options.clock ?? (() => new Date());
    this.polling = new PeriodicTask({
      run: () => this.tick(),
      everyMs: this.timing.pollMs,
      onError: options.onError,
    });
  }

  start(): void {
    this.polling.start();
  }

  /** Claims and delivers what is due, until nothing is. */
  async tick(): Promise<void> {
    for (;;) {
      const now = this.clock();
      const until = new Date(now.getTime() + this.timing.claimMs);
      const due = await this.options.webhooks.claimDue(this.options.holder, now, until, this.timing.batch);
      if (due.length === 0) break;
      await Promise.all(due.map((event) => this.attempt(event)));
    }
    if (Date.now() - this.countsRead > 10_000) {
      this.countsRead = Date.now();
      this.latestCounts = await this.options.webhooks.deliveryCounts();
    }
  }

  private async attempt(event: DueEvent): Promise<void> {
    const at = this.clock();
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(event.url, {
        method: "POST",
        body: event.body,
        redirect: "manual",
        signal: AbortSignal.timeout(this.timing.timeoutMs),
        headers: {
          "content-type": "application/json",
          "user-agent": "mailrisk-webhooks",
          "mailrisk-event-id": event.id,
          "mailrisk-signature": signWebhook(event.secret, event.body, at),
        },
      });
      statusCode = response.status;
      await response.body?.cancel();
    } catch (caught) {
      error =
        caught instanceof Error && caught.name === "TimeoutError"
          ? "timeout"
          : String((caught as Error)?.cause ?? caught);
    }
    const attempt = event.attempts + 1;
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const finished = this.clock();
    let status: DeliveryStatus = "delivered";
    let nextAttemptAt = finished;
    if (!delivered) {
      nextAttemptAt = new Date(finished.getTime() + retryDelayMs(attempt, this.timing));
      status =
        nextAttemptAt.getTime() - event.createdAt.getTime() > this.timing.giveUpMs ? "failed" : "pending";
      this.options.onFailedAttempt?.(event, error ?? `status ${statusCode}`, status);
    }
    await this.options.webhooks.finishAttempt(
      event.id,
      this.options.holder,
      { attempt, at, statusCode, error, durationMs: performance.now() - started },
      { status, nextAttemptAt },
    );
  }

  /** Delivered, failed and pending events by webhook, read at most every 10 s. */
  counts(): DeliveryCounts {
    return this.latestCounts;
  }

  stop(): Promise<void> {
    return this.polling.stop();
  }
}
