/**
 * An account's own allow and block list (docs/accounts.md "The account's list"). Every
 * change raises the account's list version first: in PostgreSQL that takes the version's
 * row, so two changes of one list take turns and its bound holds; SQLite writes one at
 * a time anyway.
 */
import { type Kysely, sql } from "kysely";
import { AccountListFullError } from "../core/refusals.js";
import type { AccountListAction, AccountListEntry, AccountListsRepository } from "./account-lists-types.js";
import { inTransaction } from "./changes.js";
import { likeLiteral, toDate, toMillis } from "./columns.js";
import type { Database } from "./schema.js";

async function raiseVersion(db: Kysely<Database>, accountId: string): Promise<void> {
  await db
    .insertInto("account_list_versions")
    .values({ account_id: accountId, version: 1 })
    .onConflict((oc) =>
      oc.column("account_id").doUpdateSet({ version: sql`account_list_versions.version + 1` }),
    )
    .execute();
}

async function countEntries(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom("account_lists")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("account_id", "=", accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function rowsOf(accountId: string, entries: readonly AccountListEntry[]) {
  return entries.map((entry) => ({
    account_id: accountId,
    domain: entry.domain,
    action: entry.action,
    created_at: entry.createdAt.getTime(),
  }));
}

async function setEntry(
  db: Kysely<Database>,
  accountId: string,
  entry: AccountListEntry,
  maxEntries: number,
): Promise<AccountListEntry> {
  return inTransaction(db, async (trx) => {
    await raiseVersion(trx, accountId);
    const known = await trx
      .selectFrom("account_lists")
      .select("domain")
      .where("account_id", "=", accountId)
      .where("domain", "=", entry.domain)
      .executeTakeFirst();
    if (!known && (await countEntries(trx, accountId)) >= maxEntries)
      throw new AccountListFullError(maxEntries);
    await trx
      .insertInto("account_lists")
      .values(rowsOf(accountId, [entry]))
      .onConflict((oc) =>
        oc.columns(["account_id", "domain"]).doUpdateSet((eb) => ({
          action: eb.ref("excluded.action"),
          created_at: eb.ref("excluded.created_at"),
        })),
      )
      .execute();
    return entry;
  });
}

async function removeEntry(db: Kysely<Database>, accountId: string, domain: string): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const result = await trx
      .deleteFrom("account_lists")
      .where("account_id", "=", accountId)
      .where("domain", "=", domain)
      .executeTakeFirst();
    const removed = Number(result.numDeletedRows) > 0;
    if (removed) await raiseVersion(trx, accountId);
    return removed;
  });
}

/** Rows per insert: well under SQLite's and PostgreSQL's bound on parameters. */
const ROWS_AT_ONCE = 200;

async function importEntries(
  db: Kysely<Database>,
  accountId: string,
  entries: readonly AccountListEntry[],
  maxEntries: number,
): Promise<number> {
  return inTransaction(db, async (trx) => {
    await raiseVersion(trx, accountId);
    const known = new Set(
      (
        await trx.selectFrom("account_lists").select("domain").where("account_id", "=", accountId).execute()
      ).map((row) => row.domain),
    );
    const added = new Set(entries.map((entry) => entry.domain).filter((domain) => !known.has(domain)));
    if (known.size + added.size > maxEntries) throw new AccountListFullError(maxEntries);
    for (let at = 0; at < entries.length; at += ROWS_AT_ONCE) {
      await trx
        .insertInto("account_lists")
        .values(rowsOf(accountId, entries.slice(at, at + ROWS_AT_ONCE)))
        .onConflict((oc) =>
          oc.columns(["account_id", "domain"]).doUpdateSet((eb) => ({
            action: eb.ref("excluded.action"),
            created_at: eb.ref("excluded.created_at"),
          })),
        )
        .execute();
    }
    return entries.length;
  });
}

function entryOf(row: { domain: string; action: string; created_at: number | string }): AccountListEntry {
  return { domain: row.domain, action: row.action as AccountListAction, createdAt: toDate(row.created_at) };
}

async function listEntries(db: Kysely<Database>, accountId: string) {
  // One read of both, so the version is the one the entries are of.
  return inTransaction(db, async (trx) => {
    const version = await trx
      .selectFrom("account_list_versions")
      .select("version")
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    const rows = await trx
      .selectFrom("account_lists")
      .select(["domain", "action", "created_at"])
      .where("account_id", "=", accountId)
      .orderBy("domain")
      .execute();
    return {
      version: version ? toMillis(version.version) : 0,
      entries: rows.map(entryOf),
    };
  });
}

async function findEntries(
  db: Kysely<Database>,
  accountId: string,
  { search, offset, limit }: { search: string | null; offset: number; limit: number },
) {
  // One read of all three, so the counts are of the entries shown.
  return inTransaction(db, async (trx) => {
    let matches = trx.selectFrom("account_lists").where("account_id", "=", accountId);
    if (search)
      matches = matches.where(
        sql<boolean>`domain like ${`%${likeLiteral(search.toLowerCase())}%`} escape '\\'`,
      );
    const counted = await matches
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirstOrThrow();
    const rows = await matches
      .select(["domain", "action", "created_at"])
      .orderBy("domain")
      .limit(limit)
      .offset(offset)
      .execute();
    return {
      total: search ? await countEntries(trx, accountId) : Number(counted.n),
      matching: Number(counted.n),
      entries: rows.map(entryOf),
    };
  });
}

async function versions(db: Kysely<Database>, accountIds: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let at = 0; at < accountIds.length; at += ROWS_AT_ONCE) {
    const rows = await db
      .selectFrom("account_list_versions")
      .select(["account_id", "version"])
      .where("account_id", "in", accountIds.slice(at, at + ROWS_AT_ONCE))
      .execute();
    for (const row of rows) found.set(row.account_id, toMillis(row.version));
  }
  return found;
}

export function createAccountListsRepository(db: Kysely<Database>): AccountListsRepository {
  return {
    listEntries: (accountId) => listEntries(db, accountId),
    findEntries: (accountId, filter) => findEntries(db, accountId, filter),
    countEntries: (accountId) => countEntries(db, accountId),
    setEntry: (accountId, entry, maxEntries) => setEntry(db, accountId, entry, maxEntries),
    removeEntry: (accountId, domain) => removeEntry(db, accountId, domain),
    importEntries: (accountId, entries, maxEntries) => importEntries(db, accountId, entries, maxEntries),
    versions: (accountIds) => versions(db, accountIds),
  };
}
