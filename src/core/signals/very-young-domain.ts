import type { DomainSignal } from "./soft-signal.js";

/** Registered less than 7 days ago. */
export const veryYoungDomain: DomainSignal = {
  key: "very_young_domain",
  weight: 50,
  verdict: { text: "Newly registered domain", reason: "Domain age < 7 days" },
  seen: (_signals, ageDays) => ageDays !== null && ageDays < 7,
};
