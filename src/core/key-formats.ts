/**
 * How an API key's secret tells its kind (docs/api.md "Keys, plans, quotas"): `mr_` for a
 * secret key, `mrp_` for a publishable one, read from the prefix before any look-up. A
 * secret is stored and looked up by its SHA-256.
 */
import { hash } from "node:crypto";

/** How a secret key's secret begins. */
export const SECRET_KEY_PREFIX = "mr_";

/** How a publishable key's secret begins. */
export const PUBLISHABLE_PREFIX = "mrp_";

/** Whether a presented secret is a publishable key's, told by its prefix before any look-up. */
export function isPublishableSecret(secret: string): boolean {
  return secret.startsWith(PUBLISHABLE_PREFIX);
}

/** The one-shot `crypto.hash` (Node ≥ 20.12): no Hash object per request. */
export function hashSecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** A secret hashed once (`hashedSecret`): a request that looks its key up twice hashes it once. */
export interface HashedSecret {
  readonly hash: string;
}

/** A secret hashed once, for a request that looks its key up more than once (`findKey`, then `authorize`). */
export function hashedSecret(secret: string): HashedSecret {
  return { hash: hashSecret(secret) };
}

/** The hash of a secret given plain or hashed already. */
export function hashOf(secret: string | HashedSecret): string {
  return typeof secret === "string" ? hashSecret(secret) : secret.hash;
}
