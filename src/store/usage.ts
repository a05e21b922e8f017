/**
 * The usage repository: the store's part of every API request (docs/api.md §6). The key
 * for a secret, then its units counted. Keys are remembered by the hash of their secret,
 * since what authentication reads of them (id, plan, quota, period, creation) never
 * changes; the quota upsert itself refuses a revoked key. Requests of one key arriving
 * together are counted by one statement (quota-batch.ts). So a request costs at most one
 * statement, and a revocation still takes effect at once in every instance sharing the
 * database.
 */
import type { Kysely } from "kysely";
import { LRUCache } from "lru-cache";
import { authenticateHash, isRevoked } from "./keys.js";
import { countUnits, refundUnits } from "./quota.js";
import { batchQuotaCounting } from "./quota-batch.js";
import type { Database } from "./schema.js";
import { hashSecret } from "./secrets.js";
import type { AuthenticatedKey, UsageRepository } from "./types.js";

/** Keys remembered per instance; one entry is a few hundred bytes. */
const KNOWN_KEYS = 10_000;

function checkUnits(units: number): void {
  if (!Number.isInteger(units) || units < 1) {
    throw new RangeError(`units must be a whole number of at least 1, not ${units}`);
  }
}

export function createUsageRepository(db: Kysely<Database>): UsageRepository {
  const known = new LRUCache<string, AuthenticatedKey>({ max: KNOWN_KEYS });
  const countRequest = batchQuotaCounting((key, now, units) => countUnits(db, key, now, units));
  return {
    async authorize(secret, now, units = 1) {
      checkUnits(units);
      const hash = hashSecret(secret);
      const key = known.get(hash) ?? (await authenticateHash(db, hash));
      if (!key) return undefined;
      const quota = await countRequest(key, now, units);
      if (!quota.allowed && (await isRevoked(db, key.id))) {
        known.delete(hash);
        return undefined;
      }
      known.set(hash, key);
      return { key, quota };
    },
    async refund(key, periodStart, units = 1) {
      checkUnits(units);
      await refundUnits(db, key, periodStart, units);
    },
  };
}
