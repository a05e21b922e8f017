/**
 * The audit log (docs/console.md "The audit log"): every change an operator makes through
 * a service of src/operator/ is recorded with who made it, in the change's transaction.
 * It never holds a secret (a new key's or webhook's secret is left out).
 */
import { type Static, Type } from "typebox";
import { formatTimestamp } from "../core/record.js";
import { nullable, Timestamp } from "../core/schema-types.js";
import type { AuditEntry, Store } from "../store/index.js";
import { shownLimit } from "./refusal.js";

/** Who makes a change: the CLI, the admin API's token, or an account of the console. */
export type Actor = { kind: "cli" } | { kind: "admin-token" } | { kind: "account"; email: string };
export const CLI_ACTOR: Actor = { kind: "cli" };
export const ADMIN_TOKEN_ACTOR: Actor = { kind: "admin-token" };
/** An account acting on itself (its console, its sign-up, its password). */
export function accountActor(account: { email: string }): Actor {
  return { kind: "account", email: account.email };
}

export const AUDIT_ACTIONS = [
  "key.create",
  "key.move",
  "key.set_origins",
  "key.revoke",
  "key.roll",
  "plan.create",
  "plan.update",
  "plan.delete",
  "override.set",
  "override.remove",
  "report.accept",
  "report.reject",
  "webhook.add",
  "webhook.remove",
  "lists.update",
  "lists.rollback",
  "lists.remove",
  "records.purge",
  "account.invite",
  "account.suspend",
  "account.resume",
  "account.set_plan",
  "account.delete",
  "account.reset_password",
  "account.signup",
  "account.invite_accepted",
  "account.password_change",
  "account.password_reset",
  "account.logout_everywhere",
  "account.2fa_on",
  "account.2fa_off",
  "account.2fa_reset",
  "account_list.add",
  "account_list.remove",
  "account_list.import",
  "job.cancel",
  "job.delete",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Entries shown by default, and at most. */
export const AUDIT_SHOWN = 100;
export const MAX_AUDIT_SHOWN = 1000;

export const AuditEntrySchema = Type.Object(
  {
    id: Type.String(),
    at: Timestamp,
    actor: Type.String({ description: "`cli`, `admin-token` or the email of the console's account." }),
    action: Type.String({ description: "What was done, `<entity>.<verb>`: `key.revoke`, `override.set`, …" }),
    entity_kind: Type.String({
      description: "`key`, `plan`, `override`, `report`, `webhook`, `lists`, `records`, `job`.",
    }),
    entity_id: nullable<string>("string", {
      description: "The entity's id (an override's is `<kind>:<value>`); null for all of a kind.",
    }),
    detail: Type.Record(Type.String(), Type.Unknown(), { description: "What changed; never a secret." }),
  },
  { description: "One change an operator made." },
);
export type AuditEntryJson = Static<typeof AuditEntrySchema>;

/** The search's fields as query parameters, for every surface that takes them. */
export const AuditSearchFields = {
  actor: Type.Optional(Type.String({ maxLength: 320, description: "`cli`, `admin-token` or an email." })),
  action: Type.Optional(
    Type.String({
      maxLength: 64,
      description: "An action (`key.revoke`), or a family (`key`: every `key.*`).",
    }),
  ),
  entity: Type.Optional(Type.String({ maxLength: 600, description: "`<kind>` or `<kind>:<id>`." })),
};

/** A search: each given field must match; `entity` is `<kind>` or `<kind>:<id>`. */
export interface AuditFilter {
  actor?: string | undefined;
  action?: string | undefined;
  entity?: string | undefined;
  limit?: number | undefined;
}

type AuditStore = Pick<Store, "audit">;

function actorName(actor: Actor): string {
  return actor.kind === "account" ? actor.email : actor.kind;
}

function auditJson(entry: AuditEntry): AuditEntryJson {
  return {
    id: entry.id,
    at: formatTimestamp(entry.at),
    actor: entry.actor,
    action: entry.action,
    entity_kind: entry.entityKind,
    entity_id: entry.entityId,
    detail: entry.detail,
  };
}

/** What a change records: its action, its entity (id null: all of a kind) and what changed. */
export interface ChangeNote {
  action: AuditAction;
  entity: { kind: string; id: string | null };
  detail?: Record<string, unknown>;
}

/** Records a change made already, in a write of its own. */
export async function recordChange(store: AuditStore, actor: Actor, note: ChangeNote): Promise<void> {
  await store.audit.record({
    at: new Date(),
    actor: actorName(actor),
    action: note.action,
    entityKind: note.entity.kind,
    entityId: note.entity.id,
    detail: note.detail ?? {},
  });
}

/**
 * Makes a change and records it in one transaction, so both commit or neither does;
 * `note` says what to record of the result (undefined: nothing changed, nothing recorded).
 */
export function audited<T>(
  store: Pick<Store, "transaction">,
  actor: Actor,
  change: (store: Store) => Promise<T>,
  note: (result: T) => ChangeNote | undefined,
): Promise<T> {
  return store.transaction(async (trx) => {
    const result = await change(trx);
    const noted = note(result);
    if (noted) await recordChange(trx, actor, noted);
    return result;
  });
}

/** The changes matching `filter`, newest first; `invalid_body` for a limit outside 1 to MAX_AUDIT_SHOWN. */
export async function searchAudit(store: AuditStore, filter: AuditFilter): Promise<AuditEntryJson[]> {
  const limit = shownLimit(filter.limit, AUDIT_SHOWN, MAX_AUDIT_SHOWN);
  const [entityKind, ...id] = filter.entity?.split(":") ?? [];
  const entries = await store.audit.search({
    actor: filter.actor || undefined,
    action: filter.action || undefined,
    entityKind: entityKind || undefined,
    entityId: id.length > 0 ? id.join(":") : undefined,
    limit,
  });
  return entries.map(auditJson);
}
