/**
 * How long a domain's facts stay fresh (docs/api.md "Storage and caching"), by the verdict decided from
 * them: RECORD_TTL in general; NEGATIVE_TTL for a domain that does not exist or takes no
 * mail (like DNS negative caching); 60 s when any DNS look-up failed for the time being
 * (a timeout, SERVFAIL or REFUSED, of the MX, the A/AAAA, the name servers or an MX
 * host's addresses), whatever decided the verdict. A domain-age look-up that failed is
 * no DNS failure: its facts keep their lifetime (docs/http.md, "Records"). Pure.
 */
import type { DomainFacts } from "../../core/check.js";
import { isTemporaryFailure, type VerdictStatus } from "../../core/verdict.js";

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

/** Whether a DNS look-up failed for the time being: its facts are kept briefly and never replace good ones. */
export function failedForNow(facts: DomainFacts, status: VerdictStatus): boolean {
  const { routing } = facts;
  return (
    isTemporaryFailure(status) ||
    routing.status === "dns_timeout" ||
    routing.status === "dns_failure" ||
    routing.nameServers === null ||
    routing.incomplete === true
  );
}

/** How long facts with this verdict stay fresh, in ms. */
export function freshForMs(facts: DomainFacts, status: VerdictStatus, rules: FreshnessRules): number {
  if (failedForNow(facts, status)) return rules.temporaryTtlSeconds * 1000;
  return (isNegative(status) ? rules.negativeTtlSeconds : rules.ttlSeconds) * 1000;
}
