/** Recently checked domains (docs/api.md "Result pages"): domains only, never addresses; bounded by pruning. */
import type { Kysely } from "kysely";
import { toDate } from "./columns.js";
import type { RecentEntry, RecentRepository } from "./recent-types.js";
import type { Database } from "./schema.js";

/** One upsert for the whole batch; a domain keeps its newest time. */
async function addRecent(db: Kysely<Database>, entries: readonly RecentEntry[]): Promise<void> {
  const newest = new Map<string, number>();
  for (const { domain, checkedAt } of entries) {
    newest.set(domain, Math.max(newest.get(domain) ?? 0, checkedAt.getTime()));
  }
  if (newest.size === 0) return;
  await db
    .insertInto("recent")
    .values([...newest].map(([domain, checked_at]) => ({ domain, checked_at })))
    .onConflict((oc) =>
      oc
        .column("domain")
        .doUpdateSet((eb) => ({ checked_at: eb.ref("excluded.checked_at") }))
        .where("recent.checked_at", "<", (eb) => eb.ref("excluded.checked_at")),
    )
    .execute();
}

/** Deletes everything older than the newest `capacity` domains (ties at the boundary stay). */
async function pruneRecent(db: Kysely<Database>, capacity: number): Promise<void> {
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

async function listRecent(db: Kysely<Database>, limit: number): Promise<RecentEntry[]> {
  const rows = await db
    .selectFrom("recent")
    .select(["domain", "checked_at"])
    .orderBy("checked_at", "desc")
    .orderBy("domain")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ domain: row.domain, checkedAt: toDate(row.checked_at) }));
}

/** `capacity`: about how many recently checked domains are kept. */
export function createRecentRepository(db: Kysely<Database>, capacity: number): RecentRepository {
  // Pruning after every tenth of the capacity keeps the table between capacity and 1.1 × capacity.
  const pruneEvery = Math.max(1, Math.ceil(capacity / 10));
  let addsSincePrune = 0;
  return {
    addRecent: async (entries) => {
      await addRecent(db, entries);
      addsSincePrune += entries.length;
      if (addsSincePrune >= pruneEvery) {
        addsSincePrune = 0;
        await pruneRecent(db, capacity);
      }
    },
    listRecent: (limit) => listRecent(db, limit),
  };
}
