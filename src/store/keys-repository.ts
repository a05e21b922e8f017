/**
 * API keys (docs/api.md "Keys, plans, quotas"): created on a plan, found by the hash of their secret,
 * revoked for good. A publishable key (docs/security.md) carries the origins it may be
 * used from; a secret key none.
 */
import { type Kysely, type RawBuilder, type Selectable, sql } from "kysely";
import { hashSecret } from "../core/key-formats.js";
import { parseOrigin } from "../core/origin.js";
import { InvalidOriginsError, UnknownKeyError, UnknownPlanError } from "../core/refusals.js";
import { inTransaction } from "./changes.js";
import { toDate } from "./columns.js";
import type { ApiKey, KeysRepository } from "./keys-types.js";
import type { ApiKeysTable, Database, PlansTable } from "./schema.js";
import { newKeyId, newSecret, secretPrefix } from "./secrets.js";
import type { AuthenticatedKey } from "./usage-types.js";

const KEY_COLUMNS = [
  "id",
  "prefix",
  "name",
  "plan",
  "created_at",
  "revoked_at",
  "publishable",
  "origins",
  "account_id",
  "expires_at",
] as const;
type KeyRow = Pick<Selectable<ApiKeysTable>, (typeof KEY_COLUMNS)[number]>;

/** Origins one publishable key may list. */
export const MAX_KEY_ORIGINS = 20;

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    plan: row.plan,
    createdAt: toDate(row.created_at),
    revokedAt: row.revoked_at === null ? null : toDate(row.revoked_at),
    publishable: Number(row.publishable) === 1,
    origins: row.origins === null ? [] : (JSON.parse(row.origins) as string[]),
    accountId: row.account_id,
    expiresAt: row.expires_at === null ? null : toDate(row.expires_at),
  };
}

/** A publishable key's origins, normalised and without repeats (`InvalidOriginsError`). */
function keyOrigins(texts: readonly string[]): string[] {
  if (texts.length === 0) {
    throw new InvalidOriginsError("a publishable key needs at least one origin, e.g. https://shop.example");
  }
  const origins = new Set<string>();
  for (const text of texts) {
    const parsed = parseOrigin(text);
    if (!parsed.ok) throw new InvalidOriginsError(parsed.reason);
    origins.add(parsed.origin);
  }
  if (origins.size > MAX_KEY_ORIGINS) {
    throw new InvalidOriginsError(`a key lists at most ${MAX_KEY_ORIGINS} origins, not ${origins.size}`);
  }
  return [...origins];
}

export async function createKey(
  db: Kysely<Database>,
  input: {
    plan: string;
    name?: string | null;
    now: Date;
    publishable?: boolean;
    origins?: readonly string[];
    accountId?: string | null;
  },
): Promise<{ key: ApiKey; secret: string }> {
  const publishable = input.publishable === true;
  if (!publishable && input.origins && input.origins.length > 0) {
    throw new InvalidOriginsError("only a publishable key has origins; a secret key is for servers");
  }
  const origins = publishable ? keyOrigins(input.origins ?? []) : [];
  const plan = await db.selectFrom("plans").select("name").where("name", "=", input.plan).executeTakeFirst();
  if (!plan) throw new UnknownPlanError(input.plan);
  const secret = newSecret(publishable);
  const key: ApiKey = {
    id: newKeyId(),
    prefix: secretPrefix(secret),
    name: input.name?.trim() || null,
    plan: plan.name,
    createdAt: input.now,
    revokedAt: null,
    publishable,
    origins,
    accountId: input.accountId ?? null,
    expiresAt: null,
  };
  await db
    .insertInto("api_keys")
    .values({
      id: key.id,
      prefix: key.prefix,
      hash: hashSecret(secret),
      name: key.name,
      plan: key.plan,
      created_at: key.createdAt.getTime(),
      revoked_at: null,
      publishable: publishable ? 1 : 0,
      origins: publishable ? JSON.stringify(origins) : null,
      account_id: key.accountId,
    })
    .execute();
  return { key, secret };
}

/** Replaces a publishable key's origins; a revoked key's too (it stays revoked). */
async function setKeyOrigins(db: Kysely<Database>, id: string, texts: readonly string[]): Promise<ApiKey> {
  const current = await getKey(db, id);
  if (!current) throw new UnknownKeyError(id);
  if (!current.publishable) {
    throw new InvalidOriginsError(`key ${id} is a secret key; only publishable keys have origins`);
  }
  const row = await db
    .updateTable("api_keys")
    .set({ origins: JSON.stringify(keyOrigins(texts)) })
    .where("id", "=", id)
    .returning(KEY_COLUMNS)
    .executeTakeFirst();
  if (!row) throw new UnknownKeyError(id);
  return toApiKey(row);
}

/** Every origin listed by a live publishable key, each once (a preflight carries no key to look up). */
export async function publishableOrigins(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom("api_keys")
    .select("origins")
    .where("publishable", "=", 1)
    .where("revoked_at", "is", null)
    .execute();
  const origins = rows.flatMap((row) => (row.origins === null ? [] : (JSON.parse(row.origins) as string[])));
  return [...new Set(origins)];
}

async function listKeys(db: Kysely<Database>): Promise<ApiKey[]> {
  const rows = await db
    .selectFrom("api_keys")
    .select(KEY_COLUMNS)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(toApiKey);
}

async function accountKeys(db: Kysely<Database>, accountId: string): Promise<ApiKey[]> {
  const rows = await db
    .selectFrom("api_keys")
    .select(KEY_COLUMNS)
    .where("account_id", "=", accountId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(toApiKey);
}

async function getKey(db: Kysely<Database>, id: string): Promise<ApiKey | undefined> {
  const row = await db.selectFrom("api_keys").select(KEY_COLUMNS).where("id", "=", id).executeTakeFirst();
  return row && toApiKey(row);
}

/** Moves a key to another plan; its count in a period of the same length carries over. */
async function setKeyPlan(db: Kysely<Database>, id: string, plan: string): Promise<ApiKey> {
  const known = await db.selectFrom("plans").select("name").where("name", "=", plan).executeTakeFirst();
  if (!known) throw new UnknownPlanError(plan);
  const row = await db
    .updateTable("api_keys")
    .set({ plan })
    .where("id", "=", id)
    .returning(KEY_COLUMNS)
    .executeTakeFirst();
  if (!row) throw new UnknownKeyError(id);
  return toApiKey(row);
}

/** True when the key exists (revoking twice keeps the first revocation time; a rolled key's stops now). */
async function revokeKey(db: Kysely<Database>, id: string, now: Date): Promise<boolean> {
  const at = now.getTime();
  const result = await db
    .updateTable("api_keys")
    .set({
      revoked_at: sql<number>`case when revoked_at is not null and revoked_at <= ${at} then revoked_at else ${at} end`,
    })
    .where("id", "=", id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * A new key in the place of a live one (same plan, name, kind, origins and account); the
 * old one keeps working until `until` (`UnknownKeyError` for an unknown or revoked key).
 */
async function rollKey(
  db: Kysely<Database>,
  id: string,
  now: Date,
  until: Date,
): Promise<{ key: ApiKey; secret: string }> {
  return inTransaction(db, async (trx) => {
    const old = await getKey(trx, id);
    if (!old || old.revokedAt !== null || old.expiresAt !== null) throw new UnknownKeyError(id);
    const rolled = await createKey(trx, { ...old, now });
    await trx.updateTable("api_keys").set({ expires_at: until.getTime() }).where("id", "=", id).execute();
    return rolled;
  });
}

/** Every key ever created, revoked ones included. */
async function countKeys(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom("api_keys")
    .select((eb) => eb.fn.countAll().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

type KeyWithPlanRow = KeyRow &
  Pick<PlansTable, "quota" | "period_days"> & {
    account_created_at: number | string | null;
    account_state: string | null;
  };

function toAuthenticatedKey(row: KeyWithPlanRow): AuthenticatedKey {
  const account =
    row.account_id === null || row.account_created_at === null
      ? null
      : {
          id: row.account_id,
          createdAt: toDate(row.account_created_at),
          suspended: row.account_state !== "active",
        };
  return { ...toApiKey(row), quota: row.quota, periodDays: row.period_days, account };
}

/** A key with the plan it counts against: its account's for an account's key (docs/accounts.md). */
const KEY_WITH_PLAN = sql`
    select k.id, k.prefix, k.name, coalesce(a.plan, k.plan) as plan, k.created_at, k.revoked_at, k.publishable, k.origins,
      k.account_id, k.expires_at, p.quota, p.period_days, a.created_at as account_created_at, a.state as account_state
    from api_keys k left join accounts a on a.id = k.account_id
    join plans p on p.name = coalesce(a.plan, k.plan)`;

/** The key, with its plan, whose secret has this hash; undefined when unknown or revoked (a rolled key: once its time is up). */
export async function authenticateHash(
  db: Kysely<Database>,
  hash: string,
  now: Date,
): Promise<AuthenticatedKey | undefined> {
  return liveKeyWhere(db, sql`k.hash = ${hash}`, now);
}

/** The live key of this id with its plan (the console, which holds no secret); undefined when unknown or revoked. */
export function authenticateId(
  db: Kysely<Database>,
  id: string,
  now: Date,
): Promise<AuthenticatedKey | undefined> {
  return liveKeyWhere(db, sql`k.id = ${id}`, now);
}

async function liveKeyWhere(
  db: Kysely<Database>,
  condition: RawBuilder<unknown>,
  now: Date,
): Promise<AuthenticatedKey | undefined> {
  const { rows } = await sql<KeyWithPlanRow>`${KEY_WITH_PLAN}
    where ${condition} and k.revoked_at is null
      and (k.expires_at is null or k.expires_at > ${now.getTime()})`.execute(db);
  return rows[0] && toAuthenticatedKey(rows[0]);
}

/** The key of this id with its plan, revoked or not; undefined when unknown. */
export async function keyWithPlan(db: Kysely<Database>, id: string): Promise<AuthenticatedKey | undefined> {
  const { rows } = await sql<KeyWithPlanRow>`${KEY_WITH_PLAN} where k.id = ${id}`.execute(db);
  return rows[0] && toAuthenticatedKey(rows[0]);
}

/** True when the key is revoked, or rolled and past its end, at `now` (or does not exist). */
export async function isRevoked(db: Kysely<Database>, id: string, now: Date): Promise<boolean> {
  const { rows } = await sql<{ revoked_at: number | string | null; expires_at: number | string | null }>`
    select revoked_at, expires_at from api_keys where id = ${id}`.execute(db);
  const row = rows[0];
  return (
    row === undefined ||
    row.revoked_at !== null ||
    (row.expires_at !== null && Number(row.expires_at) <= now.getTime())
  );
}

export function createKeysRepository(db: Kysely<Database>): KeysRepository {
  return {
    createKey: (input) => createKey(db, input),
    listKeys: () => listKeys(db),
    accountKeys: (accountId) => accountKeys(db, accountId),
    getKey: (id) => getKey(db, id),
    revokeKey: (id, now) => revokeKey(db, id, now),
    rollKey: (id, now, until) => rollKey(db, id, now, until),
    setKeyPlan: (id, plan) => setKeyPlan(db, id, plan),
    setKeyOrigins: (id, origins) => setKeyOrigins(db, id, origins),
    countKeys: () => countKeys(db),
  };
}
