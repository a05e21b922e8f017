/**
 * How an API key's secret tells its kind (docs/api.md "Keys, plans, quotas"): `mr_` for a
 * secret key, `mrp_` for a publishable one, read from the prefix before any look-up.
 */

/** How a secret key's secret begins. */
export const SECRET_KEY_PREFIX = "mr_";

/** How a publishable key's secret begins. */
export const PUBLISHABLE_PREFIX = "mrp_";

/** Whether a presented secret is a publishable key's, told by its prefix before any look-up. */
export function isPublishableSecret(secret: string): boolean {
  return secret.startsWith(PUBLISHABLE_PREFIX);
}
