import type { DomainSignal } from "./soft-signal.js";

/** Registered less than 30 days ago, but not less than 7 (that is `veryYoungDomain`). */
export const youngDomain: DomainSignal = {
  key: "young_domain",
  weight: 25,
  verdict: { text: "Newly registered domain", reason: "Domain age < 30 days" },
  seen: (_signals, ageDays) => ageDays !== null && ageDays >= 7 && ageDays < 30,
};
