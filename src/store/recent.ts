/** Recently checked domains (SPEC §7): domains only, never addresses; bounded by pruning. */
import type { Kysely } from "kysely";
import { type Database, toDate } from "./schema.js";

export async function addRecent(db: Kysely<Database>, domain: string, at: Date): Promise<void> {
  await db
    .insertInto("recent")
    .values({ domain, checked_at: at.getTime() })
    .onConflict((oc) =>
      oc
        .column("domain")
        .doUpdateSet((eb) => ({ checked_at: eb.ref("excluded.checked_at") }))
        .where("recent.checked_at", "<", (eb) => eb.ref("excluded.checked_at")),
    )
    .execute();
}

/** Deletes everything older than the newest `capacity` domains (ties at the boundary stay). */
export async function pruneRecent(db: Kysely<Database>, capacity: number): Promise<void> {
  await db
    .deleteFrom("recent")
    .where("checked_at", "<", (eb) =>
      eb
        .selectFrom("recent")
        .select("checked_at")
        .orderBy("checked_at", "desc")
        .limit(1)
        .offset(capacity - 1),
    )
    .execute();
}

export async function listRecent(
  db: Kysely<Database>,
  limit: number,
): Promise<{ domain: string; checkedAt: Date }[]> {
  const rows = await db
    .selectFrom("recent")
    .select(["domain", "checked_at"])
    .orderBy("checked_at", "desc")
    .orderBy("domain")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ domain: row.domain, checkedAt: toDate(row.checked_at) }));
}
