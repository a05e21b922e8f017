import type { DomainSignal } from "./soft-signal.js";

/** Looks like a misspelling of a popular mailbox domain (`possible_typo` non-empty). */
export const possibleTypo: DomainSignal = {
  key: "possible_typo",
  weight: 45,
  verdict: { text: "Possible typo of a popular domain", reason: "Possible typo" },
  seen: (signals) => signals.typos.length > 0,
};
