import type { DomainSignal } from "./soft-signal.js";

/** No MX record: mail falls back to the domain's own address. */
export const fallbackMx: DomainSignal = {
  key: "fallback_mx",
  weight: 25,
  verdict: { text: "No MX record, mail goes to the domain itself", reason: "Fallback MX" },
  seen: (signals) => signals.routing.status === "fallback",
};
