/**
 * The one function that counts a list job's upload on its quota, for the API and the
 * console alike (docs/jobs.md "Quota"): what is left before the body is read, the units
 * counted all or nothing once it is stored, and the 429 of an upload that needs more.
 */
import type { JobQuota } from "../operator/jobs.js";
import type { QuotaState, UsageRepository } from "../store/index.js";
import { quotaExceeded } from "./access.js";
import { HttpProblem } from "./http-problem.js";

/** Whose count an upload draws from: a key's (its account's, for an account's key), or an account's own (no key). */
export type QuotaPayer =
  | { keyId: string; usage: Pick<UsageRepository, "authorizeKey"> }
  | { accountId: string; usage: Pick<UsageRepository, "authorizeAccount"> };

/**
 * The quota an upload of `payer` is counted on as of `now` (the console's uploads are
 * the account's own, with no key); `onCounted` hears each state read or counted (the
 * API's rate-limit headers).
 */
export function jobQuota(
  payer: QuotaPayer,
  now: Date,
  onCounted: (quota: QuotaState, units: number) => void = () => {},
): JobQuota {
  const read = async (units: number): Promise<QuotaState> => {
    const counted =
      "accountId" in payer
        ? await payer.usage.authorizeAccount(payer.accountId, now, units)
        : (await payer.usage.authorizeKey(payer.keyId, now, units))?.quota;
    if (!counted)
      throw "accountId" in payer
        ? new HttpProblem("not_found", "The account of this upload was deleted meanwhile; nothing was kept.")
        : new HttpProblem(
            "invalid_api_key",
            "The key of this upload was revoked meanwhile; nothing was kept.",
          );
    return counted;
  };
  const refuse = async (items: number): Promise<never> => {
    const left = await read(0);
    onCounted({ ...left, allowed: false }, 0);
    throw quotaExceeded(left, now, items);
  };
  return {
    left: async () => (await read(0)).remaining,
    async reserve(items) {
      const quota = await read(items);
      if (!quota.allowed) return refuse(items);
      onCounted(quota, items);
      return quota.periodStart;
    },
    refuse,
  };
}
