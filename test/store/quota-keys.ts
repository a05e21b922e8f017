/** Keys on plans of a given quota for the usage tests, and their quota states. */
import type { Authorization, QuotaState, Store } from "../../src/store/index.js";

/** When the keys of these tests are created, and when their requests are made (same period). */
export const CREATED = new Date("2024-03-01T10:00:00.000Z");
export const NOW = new Date("2024-03-02T10:00:00.000Z");

/** A new key on plan `q<quota>` (created on first use), 30-day periods. */
export async function secretOnPlan(store: Store, quota: number): Promise<{ id: string; secret: string }> {
  const name = `q${quota}`;
  if (!(await store.plans.listPlans()).some((plan) => plan.name === name)) {
    await store.plans.createPlan({ name, quota, periodDays: 30 });
  }
  const { key, secret } = await store.keys.createKey({ plan: name, now: CREATED });
  return { id: key.id, secret };
}

export function quotaOf(authorization: Authorization | undefined): QuotaState {
  if (!authorization) throw new Error("the key no longer authorizes");
  return authorization.quota;
}
