/**
 * Two-factor log-in (docs/accounts.md "Two-factor log-in"): the accounts' TOTP secrets,
 * their recovery codes (hashed) and the log-ins waiting for a code. Every one-time thing
 * (a time step, a recovery code, a pending log-in's try) is spent in one statement.
 */
import { type Kysely, sql } from "kysely";
import { inTransaction } from "./changes.js";
import { toDate } from "./columns.js";
import type { Database } from "./schema.js";
import type { PendingLogin, TwoFactorRepository } from "./two-factor-types.js";

export function createTwoFactorRepository(db: Kysely<Database>): TwoFactorRepository {
  return {
    async findSecret(accountId) {
      const row = await db
        .selectFrom("two_factor")
        .select(["secret", "last_step"])
        .where("account_id", "=", accountId)
        .where("secret", "is not", null)
        .executeTakeFirst();
      return row?.secret
        ? { secret: row.secret, lastStep: row.last_step === null ? null : Number(row.last_step) }
        : undefined;
    },
    async savePending(accountId, secret, expiresAt) {
      const values = { pending_secret: secret, pending_expires_at: expiresAt.getTime() };
      await db
        .insertInto("two_factor")
        .values({ account_id: accountId, secret: null, last_step: null, ...values })
        .onConflict((oc) => oc.column("account_id").doUpdateSet(values))
        .execute();
    },
    async findPending(accountId, now) {
      const row = await db
        .selectFrom("two_factor")
        .select("pending_secret")
        .where("account_id", "=", accountId)
        .where("pending_expires_at", ">", now.getTime())
        .executeTakeFirst();
      return row?.pending_secret ?? undefined;
    },
    turnOn(accountId, { secret, recoveryHashes, now }) {
      return inTransaction(db, async (trx) => {
        const turned = await trx
          .updateTable("two_factor")
          .set({ secret, pending_secret: null, pending_expires_at: null, last_step: null })
          .where("account_id", "=", accountId)
          .where("pending_secret", "=", secret)
          .where("pending_expires_at", ">", now.getTime())
          .executeTakeFirst();
        if (turned.numUpdatedRows === 0n) return false;
        await trx.deleteFrom("recovery_codes").where("account_id", "=", accountId).execute();
        await trx
          .insertInto("recovery_codes")
          .values(recoveryHashes.map((hash) => ({ account_id: accountId, hash })))
          .execute();
        return true;
      });
    },
    turnOff(accountId) {
      return inTransaction(db, async (trx) => {
        await trx.deleteFrom("recovery_codes").where("account_id", "=", accountId).execute();
        const gone = await trx
          .deleteFrom("two_factor")
          .where("account_id", "=", accountId)
          .returning("secret")
          .executeTakeFirst();
        return gone?.secret != null;
      });
    },
    async takeStep(accountId, step) {
      const taken = await db
        .updateTable("two_factor")
        .set({ last_step: step })
        .where("account_id", "=", accountId)
        .where("secret", "is not", null)
        .where((eb) => eb.or([eb("last_step", "is", null), eb("last_step", "<", step)]))
        .executeTakeFirst();
      return taken.numUpdatedRows > 0n;
    },
    async spendRecoveryCode(accountId, hash) {
      const spent = await db
        .deleteFrom("recovery_codes")
        .where("account_id", "=", accountId)
        .where("hash", "=", hash)
        .executeTakeFirst();
      return spent.numDeletedRows > 0n;
    },
    async savePendingLogin(login) {
      await db
        .insertInto("pending_logins")
        .values({
          hash: login.hash,
          account_id: login.accountId,
          via: login.via,
          code_hash: login.codeHash,
          tries_left: login.triesLeft,
          expires_at: login.expiresAt.getTime(),
        })
        .execute();
    },
    async findPendingLogin(hash, now): Promise<PendingLogin | undefined> {
      const row = await db
        .selectFrom("pending_logins")
        .selectAll()
        .where("hash", "=", hash)
        .where("expires_at", ">", now.getTime())
        .where("tries_left", ">", 0)
        .executeTakeFirst();
      return (
        row && {
          hash: row.hash,
          accountId: row.account_id,
          via: row.via === "mail" ? "mail" : "totp",
          codeHash: row.code_hash,
          expiresAt: toDate(row.expires_at),
        }
      );
    },
    async spendLoginTry(hash, now) {
      const spent = await db
        .updateTable("pending_logins")
        .set({ tries_left: sql`tries_left - 1` })
        .where("hash", "=", hash)
        .where("tries_left", ">", 0)
        .where("expires_at", ">", now.getTime())
        .executeTakeFirst();
      return spent.numUpdatedRows > 0n;
    },
    async endPendingLogin(hash) {
      const ended = await db.deleteFrom("pending_logins").where("hash", "=", hash).executeTakeFirst();
      return ended.numDeletedRows > 0n;
    },
  };
}
