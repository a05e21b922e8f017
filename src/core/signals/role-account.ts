import type { AddressSignal } from "./soft-signal.js";

/**
 * The address is a role account (`admin@`, `info@` …; the local part before any `+tag`):
 * applied per address, never stored with the domain's record. It names no verdict: it
 * only adds its weight, and a `risky` verdict it takes a record to is named by the
 * domain's heaviest signal.
 */
export const roleAccount: AddressSignal = {
  key: "role_account",
  weight: 10,
  verdict: null,
  flag: "is_role_based_email",
  seen: (input, lists) => input.localPart !== null && lists.isRoleLocalPart(input.localPart),
};
