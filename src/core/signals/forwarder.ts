import { CATEGORY, hasCategory } from "../categories.js";
import type { DomainSignal } from "./soft-signal.js";

/** A forwarding / relay service, listed or by its MX (`is_email_forwarder`): the real mailbox is hidden. */
export const forwarder: DomainSignal = {
  key: "forwarder",
  weight: 35,
  verdict: { text: "Email forwarding service", reason: "Forwarder" },
  seen: (signals) => hasCategory(CATEGORY.forwarder, signals.categories, signals.mxProvider?.category),
};
