/** The audit log (docs/console.md "The audit log"): operators' changes, searched newest first. */
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { AuditEntry, AuditRepository, AuditSearch } from "./audit-types.js";
import { toDate } from "./columns.js";
import type { Database } from "./schema.js";

/** An id that sorts as its time does (to the millisecond), then at random. */
function newAuditId(at: Date): string {
  return `${at.getTime().toString(36).padStart(10, "0")}${randomBytes(6).toString("hex")}`;
}

async function record(db: Kysely<Database>, entry: Omit<AuditEntry, "id">): Promise<AuditEntry> {
  const saved = { ...entry, id: newAuditId(entry.at) };
  await db
    .insertInto("audit_log")
    .values({
      id: saved.id,
      at: saved.at.getTime(),
      actor: saved.actor,
      action: saved.action,
      entity_kind: saved.entityKind,
      entity_id: saved.entityId,
      detail: JSON.stringify(saved.detail),
    })
    .execute();
  return saved;
}

async function search(db: Kysely<Database>, { actor, action, entityKind, entityId, limit }: AuditSearch) {
  let query = db.selectFrom("audit_log").selectAll();
  if (actor !== undefined) query = query.where("actor", "=", actor);
  if (action?.includes(".")) query = query.where("action", "=", action);
  // A family: every action from `key.` up to `key/`, the character after the dot.
  else if (action !== undefined)
    query = query.where("action", ">", `${action}.`).where("action", "<", `${action}/`);
  if (entityKind !== undefined) query = query.where("entity_kind", "=", entityKind);
  if (entityId !== undefined) query = query.where("entity_id", "=", entityId);
  const rows = await query.orderBy("id", "desc").limit(limit).execute();
  return rows.map(
    (row): AuditEntry => ({
      id: row.id,
      at: toDate(row.at),
      actor: row.actor,
      action: row.action,
      entityKind: row.entity_kind,
      entityId: row.entity_id,
      detail: JSON.parse(row.detail) as Record<string, unknown>,
    }),
  );
}

export function createAuditRepository(db: Kysely<Database>): AuditRepository {
  return { record: (entry) => record(db, entry), search: (filter) => search(db, filter) };
}
