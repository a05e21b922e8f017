/**
 * How long a domain's facts stay fresh (docs/api.md §8), by the verdict decided from
 * them: RECORD_TTL in general; NEGATIVE_TTL for a domain that does not exist or takes no
 * mail (like DNS negative caching); 60 s when a look-up failed for the time being
 * (a DNS timeout or failure), whatever decided the verdict. Pure.
 */
import type { DomainFacts } from "../core/check.js";
import { isTemporaryFailure, type VerdictStatus } from "../core/verdict.js";

export interface FreshnessRules {
  /** RECORD_TTL, seconds. */
  ttlSeconds: number;
  /** NEGATIVE_TTL, seconds. */
  negativeTtlSeconds: number;
  /** Seconds facts found during a temporary DNS failure stay fresh. */
  temporaryTtlSeconds: number;
}

/** A verdict saying the domain does not exist or takes no mail: NEGATIVE_TTL, and never served stale. */
export function isNegative(status: VerdictStatus): boolean {
  return (
    status === "nxdomain" ||
    status === "no_mail" ||
    status === "null_mx" ||
    status === "mx_missing" ||
    status === "reserved"
  );
}

/** Whether a look-up failed for the time being: its facts are kept briefly and never replace good ones. */
export function failedForNow(facts: DomainFacts, status: VerdictStatus): boolean {
  const routing = facts.routing.status;
  return isTemporaryFailure(status) || routing === "dns_timeout" || routing === "dns_failure";
}

/** How long facts with this verdict stay fresh, in ms. */
export function freshForMs(facts: DomainFacts, status: VerdictStatus, rules: FreshnessRules): number {
  if (failedForNow(facts, status)) return rules.temporaryTtlSeconds * 1000;
  return (isNegative(status) ? rules.negativeTtlSeconds : rules.ttlSeconds) * 1000;
}
