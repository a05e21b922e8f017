/**
 * The one function that counts a list job's upload on its quota, for the API and the
 * console alike (docs/jobs.md "Quota"): what is left before the body is read, the units
 * counted all or nothing once it is stored, and the 429 of an upload that needs more.
 */
import type { JobQuota } from "../operator/jobs.js";
import type { QuotaState, UsageRepository } from "../store/types.js";
import { quotaExceeded } from "./access.js";
import { HttpProblem } from "./http-problem.js";

/**
 * The quota of the key `keyId` (its account's, for an account's key) as of `now`;
 * `onCounted` hears each state read or counted (the API's rate-limit headers).
 */
export function jobQuota(
  usage: Pick<UsageRepository, "authorizeKey">,
  keyId: string,
  now: Date,
  onCounted: (quota: QuotaState, units: number) => void = () => {},
): JobQuota {
  const read = async (units: number): Promise<QuotaState> => {
    const counted = await usage.authorizeKey(keyId, now, units);
    if (!counted)
      throw new HttpProblem(
        "invalid_api_key",
        "The key of this upload was revoked meanwhile; nothing was kept.",
      );
    return counted.quota;
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
