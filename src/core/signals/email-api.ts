import type { DomainSignal } from "./soft-signal.js";

/** A listed email-sending API's domain: not a mailbox (an MX on one is no signal). */
export const emailApi: DomainSignal = {
  key: "email_api",
  weight: 30,
  verdict: { text: "Email API service domain", reason: "Email API" },
  seen: (signals) => signals.categories.email_api !== undefined,
};
