/**
 * Giving counted units back (docs/api.md "Keys, plans, quotas": a 5xx counts nothing): to
 * a key's own count or its account's, never below zero, and the requests per day with
 * them. With a receipt's token (PostgreSQL) a give-back lands once however often it is
 * tried (quota-receipts.ts).
 */
import { type Kysely, sql } from "kysely";
import { DAY_MS } from "../core/time.js";
import { type Counter, giveBackOnce } from "./quota-receipts.js";
import type { Database } from "./schema.js";

/** The two kinds of count: a key's own, and an account's, which all its keys draw from. */
export const COUNTS = {
  key: { table: "usage", owner: "key_id" },
  account: { table: "account_usage", owner: "account_id" },
} as const;

/**
 * Gives back `units` counted in a period, to the key's own count or its account's
 * (`accountId`); the count never goes below zero. The key's requests per day lose them
 * on the day they are given back (`givenBackAt`), so that the days of a period add up
 * to its count (docs/console.md "Traffic").
 */
export async function refundUnits(
  db: Kysely<Database>,
  key: UnitsOwner,
  periodStart: Date,
  units: number,
  givenBackAt: Date = new Date(),
): Promise<void> {
  const row = counterOf(key);
  if (row && (await giveBackUnits(db, row, periodStart, units)))
    await noteGivenBack(db, key, units, givenBackAt);
}

/** The key units were counted for (null: the account's own, a console upload's) and its account. */
export interface UnitsOwner {
  id: string | null;
  accountId: string | null;
}

/** The count that holds an owner's units: its account's, else its key's; none for neither. */
export function counterOf(key: UnitsOwner): Counter | undefined {
  if (key.accountId !== null) return { ...COUNTS.account, id: key.accountId };
  return key.id === null ? undefined : { ...COUNTS.key, id: key.id };
}

/**
 * Gives back `units` counted in a period (never below zero); with a receipt's `token`
 * (PostgreSQL), once whatever happens to the answer (`giveBackOnce`). Whether units were given back.
 */
export async function giveBackUnits(
  db: Kysely<Database>,
  row: Counter,
  periodStart: Date,
  units: number,
  token?: string,
): Promise<boolean> {
  if (token !== undefined) return giveBackOnce(db, row, periodStart, token, units);
  const given =
    await sql`update ${sql.table(row.table)} set used = case when used > ${units} then used - ${units} else 0 end
    where ${sql.ref(row.owner)} = ${row.id} and period_start = ${periodStart.getTime()} and used > 0`.execute(
      db,
    );
  return Number(given.numAffectedRows ?? 0) > 0;
}

/**
 * The charts' requests per day lose units given back on the day they are given back, so
 * a period's bars add up to the count's `used` (docs/accounts.md "The console").
 */
export async function noteGivenBack(
  db: Kysely<Database>,
  key: UnitsOwner,
  units: number,
  givenBackAt: Date,
): Promise<void> {
  const id = key.accountId ?? key.id;
  if (id === null) return;
  const day = givenBackAt.getTime() - (givenBackAt.getTime() % DAY_MS);
  if (key.id === null) {
    await db
      .insertInto("account_daily_usage")
      .values({ account_id: id, day, used: -units })
      .onConflict((oc) =>
        oc.columns(["account_id", "day"]).doUpdateSet({ used: sql`account_daily_usage.used - ${units}` }),
      )
      .execute();
    return;
  }
  await db
    .insertInto("daily_usage")
    .values({ key_id: key.id, day, used: -units })
    .onConflict((oc) => oc.columns(["key_id", "day"]).doUpdateSet({ used: sql`daily_usage.used - ${units}` }))
    .execute();
}
