import type { DomainSignal } from "./soft-signal.js";

/** MX records exist, but DNS says none of their hosts has an address. */
export const mxUnresolvable: DomainSignal = {
  key: "mx_unresolvable",
  weight: 40,
  verdict: { text: "Mail servers do not resolve", reason: "MX unresolvable" },
  seen: (signals) => signals.mxUnresolvable,
};
