/**
 * Accounts (docs/accounts.md): people who log in and own keys, their sessions (rows, so
 * they can be ended), and their pending codes and links.
 */
import { type Kysely, type Selectable, sql } from "kysely";
import { mailboxOf } from "../core/mailbox.js";
import { AccountExistsError, UnknownAccountError, UnknownPlanError } from "../core/refusals.js";
import type { AccountsTable } from "./account-schema.js";
import { ticketMethods } from "./account-tickets-repository.js";
import type {
  Account,
  AccountLogin,
  AccountRole,
  AccountState,
  AccountsRepository,
} from "./accounts-types.js";
import { inTransaction } from "./changes.js";
import { likeLiteral, toDate } from "./columns.js";
import { createKey } from "./keys-repository.js";
import type { Database } from "./schema.js";
import { newAccountId } from "./secrets.js";

const ACCOUNT_COLUMNS = ["id", "email", "role", "plan", "state", "created_at"] as const;
type AccountRow = Pick<Selectable<AccountsTable>, (typeof ACCOUNT_COLUMNS)[number]>;

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    role: row.role as AccountRole,
    plan: row.plan,
    state: row.state as AccountState,
    createdAt: toDate(row.created_at),
  };
}

async function createAccount(
  db: Kysely<Database>,
  input: Parameters<AccountsRepository["createAccount"]>[0],
): ReturnType<AccountsRepository["createAccount"]> {
  // One account per mailbox (src/core/mailbox.ts): `carol+a@gmail.com` holds `c.arol@gmail.com`'s.
  const mailbox = mailboxOf(input.email);
  return inTransaction(db, async (trx) => {
    const taken = await trx
      .selectFrom("accounts")
      .select("id")
      .where((eb) => eb.or([eb("email", "=", input.email), eb("mailbox", "=", mailbox)]))
      .executeTakeFirst();
    if (taken) throw new AccountExistsError(input.email);
    const account: Account = {
      id: newAccountId(),
      email: input.email,
      role: input.role,
      plan: input.plan,
      state: "active",
      createdAt: input.now,
    };
    await trx
      .insertInto("accounts")
      .values({
        id: account.id,
        email: account.email,
        mailbox,
        password_hash: input.passwordHash,
        role: account.role,
        plan: account.plan,
        state: account.state,
        created_at: account.createdAt.getTime(),
      })
      .execute();
    const { key, secret } = await createKey(trx, { plan: input.plan, now: input.now, accountId: account.id });
    return { account, key, secret };
  });
}

async function getAccount(db: Kysely<Database>, id: string): Promise<Account | undefined> {
  const row = await db.selectFrom("accounts").select(ACCOUNT_COLUMNS).where("id", "=", id).executeTakeFirst();
  return row && toAccount(row);
}

async function findLogin(db: Kysely<Database>, email: string): Promise<AccountLogin | undefined> {
  const row = await db
    .selectFrom("accounts")
    .select([...ACCOUNT_COLUMNS, "password_hash"])
    .where("email", "=", email)
    .executeTakeFirst();
  return row && { ...toAccount(row), passwordHash: row.password_hash };
}

async function setState(db: Kysely<Database>, id: string, state: AccountState): Promise<Account> {
  return inTransaction(db, async (trx) => {
    const row = await trx
      .updateTable("accounts")
      .set({ state })
      .where("id", "=", id)
      .returning(ACCOUNT_COLUMNS)
      .executeTakeFirst();
    if (!row) throw new UnknownAccountError(id);
    if (state === "suspended") await trx.deleteFrom("sessions").where("account_id", "=", id).execute();
    return toAccount(row);
  });
}

/** The account and all its keys move to the plan (their count is the account's, docs/accounts.md). */
async function setPlan(db: Kysely<Database>, id: string, plan: string): Promise<Account> {
  return inTransaction(db, async (trx) => {
    const known = await trx.selectFrom("plans").select("name").where("name", "=", plan).executeTakeFirst();
    if (!known) throw new UnknownPlanError(plan);
    const row = await trx
      .updateTable("accounts")
      .set({ plan })
      .where("id", "=", id)
      .returning(ACCOUNT_COLUMNS)
      .executeTakeFirst();
    if (!row) throw new UnknownAccountError(id);
    await trx.updateTable("api_keys").set({ plan }).where("account_id", "=", id).execute();
    return toAccount(row);
  });
}

/** Newest first, at most `limit`; `search`: the emails that contain it (emails are lower case). */
async function listAccounts(
  db: Kysely<Database>,
  { search, limit }: { search: string | null; limit: number },
): Promise<Account[]> {
  let query = db.selectFrom("accounts").select(ACCOUNT_COLUMNS);
  if (search)
    query = query.where(sql<boolean>`email like ${`%${likeLiteral(search.toLowerCase())}%`} escape '\\'`);
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
  return rows.map(toAccount);
}

async function deleteAccount(db: Kysely<Database>, id: string): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const keys = trx.selectFrom("api_keys").select("id").where("account_id", "=", id);
    await trx.deleteFrom("usage").where("key_id", "in", keys).execute();
    await trx.deleteFrom("reports").where("key_id", "in", keys).execute();
    await trx.deleteFrom("api_keys").where("account_id", "=", id).execute();
    await trx.deleteFrom("account_usage").where("account_id", "=", id).execute();
    await trx.deleteFrom("sessions").where("account_id", "=", id).execute();
    const result = await trx.deleteFrom("accounts").where("id", "=", id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  });
}

async function findSession(db: Kysely<Database>, hash: string, now: Date, idleSince: Date, bornSince: Date) {
  const row = await db
    .selectFrom("sessions as s")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .select(["a.id", "a.email", "a.role", "a.plan", "a.state", "a.created_at", "s.csrf"])
    .select("s.created_at as session_created_at")
    .where("s.hash", "=", hash)
    .where("s.last_seen_at", ">", idleSince.getTime())
    .where("s.created_at", ">", bornSince.getTime())
    .where("a.state", "=", "active")
    .executeTakeFirst();
  if (!row) return undefined;
  await db.updateTable("sessions").set({ last_seen_at: now.getTime() }).where("hash", "=", hash).execute();
  return { account: toAccount(row), csrf: row.csrf, createdAt: toDate(row.session_created_at) };
}

export function createAccountsRepository(db: Kysely<Database>): AccountsRepository {
  return {
    createAccount: (input) => createAccount(db, input),
    listAccounts: (filter) => listAccounts(db, filter),
    getAccount: (id) => getAccount(db, id),
    findLogin: (email) => findLogin(db, email),
    findMailbox: async (mailbox) => {
      const row = await db
        .selectFrom("accounts")
        .select(ACCOUNT_COLUMNS)
        .where("mailbox", "=", mailbox)
        .executeTakeFirst();
      return row && toAccount(row);
    },
    setState: (id, state) => setState(db, id, state),
    setPlan: (id, plan) => setPlan(db, id, plan),
    deleteAccount: (id) => deleteAccount(db, id),
    setPassword: async (id, passwordHash) => {
      await db.updateTable("accounts").set({ password_hash: passwordHash }).where("id", "=", id).execute();
    },
    createSession: async ({ hash, accountId, csrf, now }) => {
      await db
        .insertInto("sessions")
        .values({ hash, account_id: accountId, csrf, last_seen_at: now.getTime(), created_at: now.getTime() })
        .execute();
    },
    findSession: (hash, now, idleSince, bornSince) => findSession(db, hash, now, idleSince, bornSince),
    deleteSession: async (hash) => {
      await db.deleteFrom("sessions").where("hash", "=", hash).execute();
    },
    deleteSessions: async (accountId, except) => {
      let query = db.deleteFrom("sessions").where("account_id", "=", accountId);
      if (except !== undefined) query = query.where("hash", "!=", except);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    ...ticketMethods(db),
  };
}
