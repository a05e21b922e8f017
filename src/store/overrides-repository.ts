/** The operator's overrides (docs/api.md "Administration"): a domain allowed or denied, infrastructure never disposable. */
import type { Kysely } from "kysely";
import type { OverrideAction, OverrideKind } from "../core/learned.js";
import { toDate } from "./columns.js";
import type { Override, OverridesRepository } from "./overrides-types.js";
import type { Database } from "./schema.js";

async function setOverride(db: Kysely<Database>, override: Override): Promise<Override> {
  await db
    .insertInto("overrides")
    .values({
      kind: override.kind,
      value: override.value,
      action: override.action,
      note: override.note,
      created_at: override.createdAt.getTime(),
    })
    .onConflict((oc) =>
      oc.columns(["kind", "value"]).doUpdateSet((eb) => ({
        action: eb.ref("excluded.action"),
        note: eb.ref("excluded.note"),
        created_at: eb.ref("excluded.created_at"),
      })),
    )
    .execute();
  return override;
}

async function removeOverride(db: Kysely<Database>, kind: OverrideKind, value: string): Promise<boolean> {
  const result = await db
    .deleteFrom("overrides")
    .where("kind", "=", kind)
    .where("value", "=", value)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

async function listOverrides(db: Kysely<Database>): Promise<Override[]> {
  const rows = await db.selectFrom("overrides").selectAll().orderBy("kind").orderBy("value").execute();
  return rows.map((row) => ({
    kind: row.kind as OverrideKind,
    value: row.value,
    action: row.action as OverrideAction,
    note: row.note,
    createdAt: toDate(row.created_at),
  }));
}

export function createOverridesRepository(db: Kysely<Database>): OverridesRepository {
  return {
    setOverride: (override) => setOverride(db, override),
    removeOverride: (kind, value) => removeOverride(db, kind, value),
    listOverrides: () => listOverrides(db),
  };
}
