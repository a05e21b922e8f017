import { inAnyCategory } from "../categories.js";
import type { DomainSignal } from "./soft-signal.js";

/** No known provider and not self-hosted: nothing vouches for the domain. */
export const unknownDomain: DomainSignal = {
  key: "unknown_domain",
  weight: 10,
  verdict: { text: "Looks okay", reason: "Unknown domain" },
  seen: (signals) =>
    !(
      signals.knownGood ||
      inAnyCategory(signals.categories) ||
      signals.mxProvider !== undefined ||
      signals.selfHosted
    ),
};
