/** Named locks that expire: one instance at a time does a job (the scheduled list sync). */
import type { Kysely } from "kysely";
import type { LocksRepository } from "./locks-types.js";
import type { Database } from "./schema.js";

/** One conditional upsert: taken when free, expired, or already ours. */
async function tryLock(db: Kysely<Database>, name: string, holder: string, now: Date, until: Date) {
  const taken = await db
    .insertInto("locks")
    .values({ name, holder, expires_at: until.getTime() })
    .onConflict((oc) =>
      oc
        .column("name")
        .doUpdateSet({ holder, expires_at: until.getTime() })
        .where((eb) => eb.or([eb("locks.expires_at", "<", now.getTime()), eb("locks.holder", "=", holder)])),
    )
    .returning("holder")
    .executeTakeFirst();
  return taken?.holder === holder;
}

export function createLocksRepository(db: Kysely<Database>): LocksRepository {
  return {
    tryLock: (name, holder, now, until) => tryLock(db, name, holder, now, until),
    unlock: async (name, holder) => {
      await db.deleteFrom("locks").where("name", "=", name).where("holder", "=", holder).execute();
    },
  };
}
