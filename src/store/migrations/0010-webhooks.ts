/**
 * Webhooks (docs/webhooks.md): the operator's subscriptions, the outbox of events with
 * their delivery state and claims, every attempt, and when each domain was last answered
 * (`records.last_answered_at`: the watched domains).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("records").addColumn("last_answered_at", "bigint").execute();
  await db.schema
    .createTable("webhooks")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("url", "text", (col) => col.notNull())
    .addColumn("secret", "text", (col) => col.notNull())
    /** Comma list of event types. */
    .addColumn("events", "text", (col) => col.notNull())
    .addColumn("created_at", "bigint", (col) => col.notNull())
    .execute();
  await db.schema
    .createTable("webhook_events")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("webhook_id", "text", (col) => col.notNull())
    .addColumn("domain", "text", (col) => col.notNull())
    .addColumn("type", "text", (col) => col.notNull())
    /** The JSON body, the same on every attempt. */
    .addColumn("body", "text", (col) => col.notNull())
    .addColumn("created_at", "bigint", (col) => col.notNull())
    /** `pending`, `delivered` or `failed`. */
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("attempts", "integer", (col) => col.notNull())
    .addColumn("next_attempt_at", "bigint", (col) => col.notNull())
    .addColumn("claimed_by", "text")
    .addColumn("claimed_until", "bigint")
    .addColumn("finished_at", "bigint")
    .execute();
  // The delivery loop's question: pending events that are due, in order per webhook and domain.
  await db.schema
    .createIndex("webhook_events_due")
    .on("webhook_events")
    .columns(["status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("webhook_events_order")
    .on("webhook_events")
    .columns(["webhook_id", "domain", "status", "created_at"])
    .execute();
  await db.schema
    .createTable("webhook_attempts")
    .addColumn("event_id", "text", (col) => col.notNull())
    .addColumn("attempt", "integer", (col) => col.notNull())
    .addColumn("at", "bigint", (col) => col.notNull())
    /** The HTTP status; null when none came (time-out, refused connection). */
    .addColumn("status_code", "integer")
    .addColumn("error", "text")
    .addColumn("duration_ms", "integer", (col) => col.notNull())
    .addPrimaryKeyConstraint("webhook_attempts_pk", ["event_id", "attempt"])
    .execute();
}
