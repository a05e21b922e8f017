/**
 * The store's part of every API request (SPEC §6): the key for a secret, then one
 * counted request. Keys are remembered by the hash of their secret, since what
 * authentication reads of them (id, plan, quota, period, creation) never changes; the
 * quota upsert itself refuses a revoked key. Requests of one key arriving together are
 * counted by one statement (quota-batch.ts). So a request costs at most one statement,
 * and a revocation still takes effect at once in every instance sharing the database.
 */
import type { Kysely } from "kysely";
import { LRUCache } from "lru-cache";
import { authenticateHash, isRevoked } from "./keys.js";
import { consumeQuotas } from "./quota.js";
import { batchQuotaCounting } from "./quota-batch.js";
import type { Database } from "./schema.js";
import { hashSecret } from "./secrets.js";
import type { AuthenticatedKey, Authorization } from "./types.js";

/** Keys remembered per instance; one entry is a few hundred bytes. */
const KNOWN_KEYS = 10_000;

export type Authorize = (secret: string, now: Date) => Promise<Authorization | undefined>;

export function createAuthorize(db: Kysely<Database>): Authorize {
  const known = new LRUCache<string, AuthenticatedKey>({ max: KNOWN_KEYS });
  const countRequest = batchQuotaCounting((key, now, count) => consumeQuotas(db, key, now, count));
  return async (secret, now) => {
    const hash = hashSecret(secret);
    const key = known.get(hash) ?? (await authenticateHash(db, hash));
    if (!key) return undefined;
    const quota = await countRequest(key, now);
    if (!quota.allowed && (await isRevoked(db, key.id))) {
      known.delete(hash);
      return undefined;
    }
    known.set(hash, key);
    return { key, quota };
  };
}
