/**
 * Domain age never slows a check. DNS answers first; only a registered domain's age is
 * asked of the registries (RDAP, then WHOIS), and the check waits for it at most
 * `waitMs` (200 ms by default). An age that comes later (within AGE_TIMEOUT_MS) gives
 * complete facts that the record cache saves when they arrive, so a days-old domain
 * still gets its risk from the next answer on.
 */
import type { DomainAgeLookup } from "../../core/age.js";
import { type DomainFacts, isRegistered, lookupRouting } from "../../core/check.js";
import type { DnsResolver } from "../../core/dns.js";
import { suffixFacts } from "../../core/names.js";
import type { NameRules } from "../../core/reserved-names.js";
import type { QuietZones } from "./quiet-zones.js";

/** How long a check waits for the registries before it answers without the domain's age. */
export const AGE_WAIT_MS = 200;

export interface LookupResult {
  facts: DomainFacts;
  /** The same facts with the domain's age, when the age came after the answer; null when none came. */
  later?: Promise<DomainFacts | null>;
}

const LATE = Symbol("late");

export async function lookupWithinAgeBudget(
  domain: string,
  resolver: DnsResolver,
  rules: NameRules,
  age: DomainAgeLookup | null,
  waitMs = AGE_WAIT_MS,
  quiet?: QuietZones,
): Promise<LookupResult> {
  const routing = await (quiet
    ? quiet.lookupRouting(domain, resolver, rules)
    : lookupRouting(domain, resolver, rules));
  if (age === null || !isRegistered(domain, routing)) return { facts: { routing, createdAt: null } };
  const asked = age.lookup(suffixFacts(domain).baseDomain).catch(() => null);
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    asked,
    new Promise<typeof LATE>((resolve) => {
      timer = setTimeout(() => resolve(LATE), waitMs);
    }),
  ]);
  clearTimeout(timer);
  if (answered !== LATE) return { facts: { routing, createdAt: answered?.createdAt ?? null } };
  return {
    facts: { routing, createdAt: null },
    later: asked.then((found) => (found ? { routing, createdAt: found.createdAt } : null)),
  };
}
