/**
 * API keys (docs/api.md "Keys, plans, quotas"): list, create (secret or publishable),
 * move to a plan, set a publishable key's origins, revoke. The secret is in the created
 * key's answer only, after `id`, as `mailrisk keys create --json` has always printed it.
 */
import { type Static, Type } from "typebox";
import { MAX_ORIGIN_LENGTH } from "../core/origin.js";
import { formatTimestamp } from "../core/record.js";
import { nullable, Timestamp } from "../core/schema-types.js";
import type { ApiKey, Store } from "../store/index.js";
import { MAX_KEY_ORIGINS } from "../store/keys-repository.js";
import { type Actor, audited } from "./audit.js";
import { Refusal } from "./refusal.js";

export const PlanName = Type.String({ minLength: 1, maxLength: 64, description: "Plan name: a–z 0–9 . _ -" });

const KeyFields = {
  prefix: Type.String({ description: "The secret's first characters, safe to show." }),
  name: nullable<string>("string"),
  created_at: Timestamp,
};
const Publishable = Type.Boolean({
  description: "A publishable (`mrp_`) key: the checking routes only, from its origins only.",
});
const KeyOrigins = Type.Array(Type.String(), {
  description: "The origins a publishable key may be used from; empty for a secret key.",
});

export const KeySchema = Type.Object({
  id: Type.String(),
  prefix: KeyFields.prefix,
  name: KeyFields.name,
  plan: Type.String(),
  created_at: Timestamp,
  revoked_at: nullable<string>("string", { format: "date-time" }),
  publishable: Publishable,
  origins: KeyOrigins,
});
export type KeyJson = Static<typeof KeySchema>;

export const CreatedKeySchema = Type.Object({
  id: Type.String(),
  key: Type.String({ description: "The secret, shown only in this answer." }),
  plan: Type.String(),
  ...KeyFields,
  publishable: Publishable,
  origins: KeyOrigins,
});
export type CreatedKey = Static<typeof CreatedKeySchema>;

const Origins = Type.Array(Type.String({ maxLength: MAX_ORIGIN_LENGTH }), {
  maxItems: MAX_KEY_ORIGINS,
  description: "Exact origins, `scheme://host[:port]` (http or https, no path, no wildcard).",
});
export const CreateKeyBody = Type.Object({
  plan: PlanName,
  name: Type.Optional(nullable<string>("string", { maxLength: 200 })),
  publishable: Type.Optional(
    Type.Boolean({ description: "Create a publishable (`mrp_`) key; it needs `origins`." }),
  ),
  origins: Type.Optional(Origins),
});
export const MoveKeyBody = Type.Object({ plan: PlanName });
export const KeyOriginsBody = Type.Object({ origins: Origins });
export const KeyIdParams = Type.Object({ id: Type.String() });

export function keyJson(key: ApiKey): KeyJson {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    plan: key.plan,
    created_at: formatTimestamp(key.createdAt),
    revoked_at: key.revokedAt ? formatTimestamp(key.revokedAt) : null,
    publishable: key.publishable,
    origins: key.origins,
  };
}

type KeyStore = Pick<Store, "keys" | "transaction">;

export async function listKeys(store: Pick<Store, "keys">): Promise<KeyJson[]> {
  return (await store.keys.listKeys()).map(keyJson);
}

export function createKey(
  store: KeyStore,
  body: Static<typeof CreateKeyBody>,
  now: Date,
  actor: Actor,
): Promise<CreatedKey> {
  const create = async (trx: Store): Promise<CreatedKey> => {
    const { key, secret } = await trx.keys.createKey({
      plan: body.plan,
      name: body.name ?? null,
      now,
      publishable: body.publishable ?? false,
      origins: body.origins ?? [],
    });
    return createdKeyJson(key, secret);
  };
  return audited(store, actor, create, ({ id, plan, prefix, name, publishable, origins }) => ({
    action: "key.create",
    entity: { kind: "key", id },
    detail: { plan, prefix, name, publishable, origins },
  }));
}

/** A new key with its secret after `id`, in the created key's wire shape. */
export function createdKeyJson(key: ApiKey, secret: string): CreatedKey {
  const { id, prefix, name, created_at, publishable, origins } = keyJson(key);
  return { id, key: secret, plan: key.plan, prefix, name, created_at, publishable, origins };
}

export function setKeyPlan(store: KeyStore, id: string, plan: string, actor: Actor): Promise<KeyJson> {
  return audited(
    store,
    actor,
    async (trx) => keyJson(await trx.keys.setKeyPlan(id, plan)),
    () => ({ action: "key.move", entity: { kind: "key", id }, detail: { plan } }),
  );
}

export function setKeyOrigins(
  store: KeyStore,
  id: string,
  origins: string[],
  actor: Actor,
): Promise<KeyJson> {
  return audited(
    store,
    actor,
    async (trx) => keyJson(await trx.keys.setKeyOrigins(id, origins)),
    (key) => ({ action: "key.set_origins", entity: { kind: "key", id }, detail: { origins: key.origins } }),
  );
}

/** Revokes a key for good; `unknown_key` for an id no key has. */
export function revokeKey(store: KeyStore, id: string, now: Date, actor: Actor): Promise<KeyJson> {
  const revoke = async (trx: Store) => {
    const revoked = (await trx.keys.revokeKey(id, now)) ? await trx.keys.getKey(id) : undefined;
    if (!revoked) throw new Refusal("unknown_key", `unknown key "${id}"`);
    return keyJson(revoked);
  };
  return audited(store, actor, revoke, (key) => ({
    action: "key.revoke",
    entity: { kind: "key", id },
    detail: { prefix: key.prefix },
  }));
}
