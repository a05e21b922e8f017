/**
 * Accounts (docs/accounts.md): people who log in and own keys, their sessions (rows, so
 * they can be ended), and their pending codes and links.
 */
import { type Kysely, type Selectable, sql } from "kysely";
import { inTransaction } from "./changes.js";
import { AccountExistsError, UnknownAccountError, UnknownPlanError } from "./errors.js";
import { createKey } from "./keys-repository.js";
import { type AccountsTable, type Database, likeLiteral, toDate } from "./schema.js";
import { newAccountId } from "./secrets.js";
import type {
  Account,
  AccountLogin,
  AccountRole,
  AccountState,
  AccountsRepository,
  AccountTicket,
} from "./types.js";

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
  return inTransaction(db, async (trx) => {
    const taken = await trx
      .selectFrom("accounts")
      .select("id")
      .where("email", "=", input.email)
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

async function findSession(db: Kysely<Database>, hash: string, now: Date, idleSince: Date) {
  const row = await db
    .selectFrom("sessions as s")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .select(["a.id", "a.email", "a.role", "a.plan", "a.state", "a.created_at", "s.csrf"])
    .where("s.hash", "=", hash)
    .where("s.last_seen_at", ">", idleSince.getTime())
    .where("a.state", "=", "active")
    .executeTakeFirst();
  if (!row) return undefined;
  await db.updateTable("sessions").set({ last_seen_at: now.getTime() }).where("hash", "=", hash).execute();
  return { account: toAccount(row), csrf: row.csrf };
}

async function findTicket(db: Kysely<Database>, hash: string, now: Date): Promise<AccountTicket | undefined> {
  const row = await db
    .selectFrom("account_tickets")
    .selectAll()
    .where("hash", "=", hash)
    .where("expires_at", ">", now.getTime())
    .where("tries_left", ">", 0)
    .executeTakeFirst();
  return (
    row && {
      hash: row.hash,
      kind: row.kind as AccountTicket["kind"],
      email: row.email,
      codeHash: row.code_hash,
      triesLeft: row.tries_left,
      expiresAt: toDate(row.expires_at),
      payload: JSON.parse(row.payload) as AccountTicket["payload"],
    }
  );
}

export function createAccountsRepository(db: Kysely<Database>): AccountsRepository {
  return {
    createAccount: (input) => createAccount(db, input),
    listAccounts: (filter) => listAccounts(db, filter),
    getAccount: (id) => getAccount(db, id),
    findLogin: (email) => findLogin(db, email),
    setState: (id, state) => setState(db, id, state),
    setPlan: (id, plan) => setPlan(db, id, plan),
    deleteAccount: (id) => deleteAccount(db, id),
    setPassword: async (id, passwordHash) => {
      await db.updateTable("accounts").set({ password_hash: passwordHash }).where("id", "=", id).execute();
    },
    createSession: async ({ hash, accountId, csrf, now }) => {
      await db
        .insertInto("sessions")
        .values({ hash, account_id: accountId, csrf, last_seen_at: now.getTime() })
        .execute();
    },
    findSession: (hash, now, idleSince) => findSession(db, hash, now, idleSince),
    deleteSession: async (hash) => {
      await db.deleteFrom("sessions").where("hash", "=", hash).execute();
    },
    deleteSessions: async (accountId) => {
      await db.deleteFrom("sessions").where("account_id", "=", accountId).execute();
    },
    saveTicket: async (ticket) => {
      const values = {
        hash: ticket.hash,
        kind: ticket.kind,
        email: ticket.email,
        code_hash: ticket.codeHash,
        tries_left: ticket.triesLeft,
        expires_at: ticket.expiresAt.getTime(),
        payload: JSON.stringify(ticket.payload),
      };
      await db
        .insertInto("account_tickets")
        .values(values)
        .onConflict((oc) => oc.column("hash").doUpdateSet(values))
        .execute();
    },
    findTicket: (hash, now) => findTicket(db, hash, now),
    spendTry: async (hash) => {
      await db
        .updateTable("account_tickets")
        .set({ tries_left: sql`tries_left - 1` })
        .where("hash", "=", hash)
        .execute();
    },
    deleteTicket: async (hash) => {
      await db.deleteFrom("account_tickets").where("hash", "=", hash).execute();
    },
  };
}
