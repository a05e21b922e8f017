/**
 * Webhooks (docs/webhooks.md): subscriptions, and the outbox of their events with every
 * delivery attempt. Events are written in the transaction that records a flip
 * (records.ts), so none is lost; each attempt is claimed by one instance at a time.
 */
import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { withoutCredentials } from "../core/web-url.js";
import { inTransaction } from "./changes.js";
import { toDate } from "./columns.js";
import type { Database } from "./schema.js";
import type {
  Delivery,
  DeliveryStatus,
  DueEvent,
  Webhook,
  WebhookEventType,
  WebhooksRepository,
} from "./webhooks-types.js";

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}

function toWebhook(row: { id: string; url: string; events: string; created_at: number | string }): Webhook {
  return {
    id: row.id,
    // A URL stored before credentials were refused is never read back with them.
    url: withoutCredentials(row.url),
    events: row.events.split(",").filter(Boolean) as WebhookEventType[],
    createdAt: toDate(row.created_at),
  };
}

/** A flip of a watched domain, as every subscribed webhook gets it. */
export interface Flip {
  domain: string;
  block: boolean;
  at: Date;
  record: { reason: string } & Record<string, unknown>;
}

/**
 * Writes one event per webhook subscribed to `type`, inside the caller's transaction;
 * `subject` (a domain, a job's id) keeps the deliveries of one subject in order.
 */
async function enqueueEvents(
  db: Kysely<Database>,
  type: WebhookEventType,
  subject: string,
  at: Date,
  payload: Record<string, unknown>,
): Promise<void> {
  const hooks = (await db.selectFrom("webhooks").select(["id", "events"]).execute()).filter((hook) =>
    hook.events.split(",").includes(type),
  );
  if (hooks.length === 0) return;
  const time = at.getTime();
  await db
    .insertInto("webhook_events")
    .values(
      hooks.map((hook) => {
        const id = newId("evt");
        const body = JSON.stringify({ id, type, created_at: at.toISOString(), ...payload });
        return {
          id,
          webhook_id: hook.id,
          domain: subject,
          type,
          body,
          created_at: time,
          status: "pending",
          attempts: 0,
          next_attempt_at: time,
          claimed_by: null,
          claimed_until: null,
          finished_at: null,
        };
      }),
    )
    .execute();
}

/** Writes one event per webhook subscribed to the flip's type (inside the flip's transaction). */
export function enqueueFlipEvents(db: Kysely<Database>, flip: Flip): Promise<void> {
  return enqueueEvents(db, flip.block ? "domain.blocked" : "domain.unblocked", flip.domain, flip.at, {
    domain: flip.domain,
    block: flip.block,
    previous_block: !flip.block,
    reason: flip.record.reason,
    record: flip.record,
  });
}

/** Writes `job.completed` or `job.failed` for a job that ended (inside the transaction that ended it). */
export function enqueueJobEvent(
  db: Kysely<Database>,
  type: "job.completed" | "job.failed",
  at: Date,
  job: Record<string, unknown> & { id: string },
): Promise<void> {
  return enqueueEvents(db, type, job.id, at, { job });
}

/**
 * One conditional update: the outer conditions are checked again on each row it locks,
 * so two instances racing for an event never both get it. Only the oldest pending event
 * of a webhook and domain is due: deliveries keep their order per domain.
 */
async function claimDue(
  db: Kysely<Database>,
  holder: string,
  now: Date,
  until: Date,
  limit: number,
): Promise<DueEvent[]> {
  const t = now.getTime();
  // A read first: an idle outbox costs no write (and no wait for SQLite's write lock).
  const due = await sql`
    select 1 as due from webhook_events where status = 'pending' and next_attempt_at <= ${t} limit 1`.execute(
    db,
  );
  if (due.rows.length === 0) return [];
  const { rows } = await sql<{ id: string }>`
    update webhook_events set claimed_by = ${holder}, claimed_until = ${until.getTime()}
    where id in (
      select e.id from webhook_events e
      where e.status = 'pending' and e.next_attempt_at <= ${t}
        and (e.claimed_until is null or e.claimed_until < ${t})
        and not exists (
          select 1 from webhook_events o
          where o.webhook_id = e.webhook_id and o.domain = e.domain and o.status = 'pending'
            and (o.created_at < e.created_at or (o.created_at = e.created_at and o.id < e.id)))
      order by e.next_attempt_at
      limit ${limit})
    and status = 'pending' and (claimed_until is null or claimed_until < ${t})
    returning id`.execute(db);
  if (rows.length === 0) return [];
  const events = await db
    .selectFrom("webhook_events")
    .innerJoin("webhooks", "webhooks.id", "webhook_events.webhook_id")
    .select([
      "webhook_events.id",
      "webhook_events.webhook_id",
      "webhook_events.body",
      "webhook_events.attempts",
      "webhook_events.created_at",
      "webhooks.url",
      "webhooks.secret",
    ])
    .where(
      "webhook_events.id",
      "in",
      rows.map((row) => row.id),
    )
    .where("webhook_events.claimed_by", "=", holder)
    .execute();
  return events.map((row) => ({
    id: row.id,
    webhookId: row.webhook_id,
    url: withoutCredentials(row.url),
    secret: row.secret,
    body: row.body,
    attempts: row.attempts,
    createdAt: toDate(row.created_at),
  }));
}

async function finishAttempt(
  db: Kysely<Database>,
  eventId: string,
  holder: string,
  attempt: Parameters<WebhooksRepository["finishAttempt"]>[2],
  next: { status: DeliveryStatus; nextAttemptAt: Date },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable("webhook_events")
      .set({
        status: next.status,
        attempts: attempt.attempt,
        next_attempt_at: next.nextAttemptAt.getTime(),
        claimed_by: null,
        claimed_until: null,
        finished_at: next.status === "pending" ? null : attempt.at.getTime(),
      })
      .where("id", "=", eventId)
      .where("claimed_by", "=", holder)
      .where("status", "=", "pending")
      .executeTakeFirst();
    // A claim that expired and was taken by another instance records nothing.
    if (Number(updated.numUpdatedRows) === 0) return;
    await trx
      .insertInto("webhook_attempts")
      .values({
        event_id: eventId,
        attempt: attempt.attempt,
        at: attempt.at.getTime(),
        status_code: attempt.statusCode,
        error: attempt.error,
        duration_ms: Math.round(attempt.durationMs),
      })
      .execute();
  });
}

async function deliveries(
  db: Kysely<Database>,
  webhookId: string | null,
  limit: number,
): Promise<Delivery[]> {
  let query = db
    .selectFrom("webhook_events")
    .select(["id", "webhook_id", "domain", "type", "status", "created_at", "next_attempt_at"]);
  if (webhookId !== null) query = query.where("webhook_id", "=", webhookId);
  const events = await query.orderBy("created_at", "desc").orderBy("id").limit(limit).execute();
  if (events.length === 0) return [];
  const attempts = await db
    .selectFrom("webhook_attempts")
    .selectAll()
    .where(
      "event_id",
      "in",
      events.map((event) => event.id),
    )
    .orderBy("attempt")
    .execute();
  return events.map((event) => ({
    id: event.id,
    webhookId: event.webhook_id,
    domain: event.domain,
    type: event.type,
    status: event.status as DeliveryStatus,
    createdAt: toDate(event.created_at),
    nextAttemptAt: event.status === "pending" ? toDate(event.next_attempt_at) : null,
    attempts: attempts
      .filter((a) => a.event_id === event.id)
      .map((a) => ({
        attempt: a.attempt,
        at: toDate(a.at),
        statusCode: a.status_code,
        error: a.error === null ? null : withoutCredentials(a.error),
        durationMs: a.duration_ms,
      })),
  }));
}

export function createWebhooksRepository(db: Kysely<Database>): WebhooksRepository {
  return {
    createWebhook: async ({ url, secret, events, now }) => {
      const row = { id: newId("wh"), url, secret, events: events.join(","), created_at: now.getTime() };
      await db.insertInto("webhooks").values(row).execute();
      return toWebhook(row);
    },
    listWebhooks: async () =>
      (await db.selectFrom("webhooks").selectAll().orderBy("created_at").orderBy("id").execute()).map(
        toWebhook,
      ),
    removeWebhook: (id) =>
      inTransaction(db, async (trx) => {
        await trx
          .deleteFrom("webhook_attempts")
          .where("event_id", "in", (eb) =>
            eb.selectFrom("webhook_events").select("id").where("webhook_id", "=", id),
          )
          .execute();
        await trx.deleteFrom("webhook_events").where("webhook_id", "=", id).execute();
        const removed = await trx.deleteFrom("webhooks").where("id", "=", id).executeTakeFirst();
        return Number(removed.numDeletedRows) > 0;
      }),
    claimDue: (holder, now, until, limit) => claimDue(db, holder, now, until, limit),
    finishAttempt: (eventId, holder, attempt, next) => finishAttempt(db, eventId, holder, attempt, next),
    deliveries: (webhookId, limit) => deliveries(db, webhookId, limit),
    deliveryCounts: async () => {
      const rows = await db
        .selectFrom("webhook_events")
        .select(["webhook_id", "status", (eb) => eb.fn.countAll<number | string>().as("count")])
        .groupBy(["webhook_id", "status"])
        .execute();
      return rows.map((row) => ({
        webhookId: row.webhook_id,
        status: row.status as DeliveryStatus,
        count: Number(row.count),
      }));
    },
  };
}
