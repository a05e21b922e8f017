/**
 * Failed log-ins counted by subject (docs/security.md "Log-in throttling"): each try is
 * one upsert whose update runs only while the subject does not wait, so concurrent tries
 * are counted exactly and a waiting subject's tries change nothing.
 */
import { type Kysely, sql } from "kysely";
import { toDate } from "./columns.js";
import type { LoginThrottleRepository, ThrottleRule, ThrottleTry } from "./login-throttle-types.js";
import type { Database } from "./schema.js";

async function countTry(
  db: Kysely<Database>,
  subject: string,
  rule: ThrottleRule,
  now: Date,
): Promise<ThrottleTry> {
  const at = now.getTime();
  // Typed parameters: PostgreSQL does not guess the type of a parameter in arithmetic.
  const big = (value: number) => sql<number>`cast(${value} as bigint)`;
  const windowEnded = sql<boolean>`login_throttle.window_start <= ${at - rule.windowMs}`;
  const lockEnded = rule.restartAfterLock
    ? sql<boolean>`(login_throttle.locked_until is not null and login_throttle.locked_until <= ${at})`
    : sql<boolean>`1 = 0`;
  const restart = sql<boolean>`(${windowEnded} or ${lockEnded})`;
  const next = sql<number>`case when ${restart} then 1 else login_throttle.failures + 1 end`;
  // The wait the try numbered `next` starts: stepMs for each try from lockAt on, at most maxLockMs.
  const wait =
    rule.lockAt === null
      ? sql<number | null>`null`
      : sql<number | null>`case when ${next} >= ${big(rule.lockAt)}
          then ${big(at)} + case when (${next} - ${big(rule.lockAt)} + 1) * ${big(rule.stepMs)} > ${big(rule.maxLockMs)}
            then ${big(rule.maxLockMs)} else (${next} - ${big(rule.lockAt)} + 1) * ${big(rule.stepMs)} end
          else null end`;
  const row = await db
    .insertInto("login_throttle")
    .values({ subject, failures: 1, window_start: at, locked_until: null })
    .onConflict((oc) =>
      oc
        .column("subject")
        .doUpdateSet({
          failures: next,
          window_start: sql`case when ${restart} then ${big(at)} else login_throttle.window_start end`,
          locked_until: wait,
        })
        .where(sql<boolean>`(login_throttle.locked_until is null or login_throttle.locked_until <= ${at})`),
    )
    .returning(["failures"])
    .executeTakeFirst();
  if (row) return { counted: true, failures: Number(row.failures) };
  return { counted: false, lockedUntil: (await lockedUntil(db, subject, now)) ?? now };
}

async function lockedUntil(db: Kysely<Database>, subject: string, now: Date): Promise<Date | null> {
  const row = await db
    .selectFrom("login_throttle")
    .select("locked_until")
    .where("subject", "=", subject)
    .where("locked_until", ">", now.getTime())
    .executeTakeFirst();
  return row?.locked_until == null ? null : toDate(row.locked_until);
}

export function createLoginThrottleRepository(db: Kysely<Database>): LoginThrottleRepository {
  return {
    countTry: (subject, rule, now) => countTry(db, subject, rule, now),
    lockedUntil: (subject, now) => lockedUntil(db, subject, now),
    async failures(subject, since) {
      const row = await db
        .selectFrom("login_throttle")
        .select("failures")
        .where("subject", "=", subject)
        .where("window_start", ">", since.getTime())
        .executeTakeFirst();
      return row ? Number(row.failures) : 0;
    },
    async giveBack(subject) {
      await db
        .updateTable("login_throttle")
        .set({ failures: sql`failures - 1` })
        .where("subject", "=", subject)
        .where("failures", ">", 0)
        .execute();
    },
    async clear(subject) {
      await db.deleteFrom("login_throttle").where("subject", "=", subject).execute();
    },
  };
}
