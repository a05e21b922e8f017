/**
 * Which names may be disposable, the one rule for the bundled build (scripts/data/) and
 * for lists synced while the service runs (src/service/lists/list-sync.ts): never a public
 * suffix (private ones included), a reserved name, a relay service (a forwarder, not a
 * throwaway mailbox), a known-good domain or anything under an academic or government
 * suffix that admits only institutions (`edu`, `ac.uk`), a named institution under a
 * suffix open to anyone (`uw.edu.pl`; `gold.edu.pl` may be listed), a curated provider's domain, or a parking service (a domain parked on one must
 * read as parked). The first rule that matches names the refusal.
 */
import { PROVIDER_CATEGORIES } from "../core/categories.js";
import { findSelfOrParent, isPublicSuffix } from "../core/names.js";
import { reservedName } from "../core/reserved-names.js";
import type { CuratedLists } from "./curated.js";

/** Why a name may not be disposable. */
export type Refusal = "public_suffix" | "reserved" | "forwarder" | "known_good";

/** The sentence a report shows for each refusal. */
export const REFUSAL_TEXT: Readonly<Record<Refusal, string>> = {
  public_suffix: "a public suffix: listing it would block every domain under it",
  reserved: "a reserved name (RFC 2606/6761): no service can run on it",
  forwarder: "a forwarding (relay) service: it hides a real mailbox",
  known_good:
    "a known-good domain, a provider's, a parking service's, or under an academic or government suffix",
};

/** The gate of normalised names: the refusal, or undefined for a name that may be disposable. */
export type ListGate = (domain: string) => Refusal | undefined;

/** Names that must never be disposable, by the curated lists. */
function protectedNames(curated: CuratedLists): Set<string> {
  const providers = PROVIDER_CATEGORIES.filter((c) => c !== "forwarder").flatMap((c) =>
    curated.categories[c].map((e) => e.entry),
  );
  const parking = curated.parkingHosts.map((e) => e.entry);
  const institutions = curated.institutions.map((e) => e.entry);
  return new Set([
    ...curated.knownGood,
    ...curated.knownGoodSuffixes,
    ...institutions,
    ...providers,
    ...parking,
  ]);
}

export function listGate(curated: CuratedLists): ListGate {
  const safe = protectedNames(curated);
  const forwarders = new Set(curated.categories.forwarder.map((e) => e.entry));
  return (domain) => {
    if (isPublicSuffix(domain)) return "public_suffix";
    if (reservedName(domain) !== undefined) return "reserved";
    if (findSelfOrParent(forwarders, domain) !== undefined) return "forwarder";
    if (findSelfOrParent(safe, domain) !== undefined) return "known_good";
    return undefined;
  };
}
