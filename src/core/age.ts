/**
 * What a domain-age look-up answers, and how the record shows it (docs/api.md "The record":
 * `domain_age_days` in whole days, `domain_created_at` as a docs/api.md "The record" timestamp).
 */
import { type CheckRecord, formatTimestamp } from "./record.js";
import { DAY_MS } from "./time.js";

export interface DomainAge {
  /** Registration time as the registry states it. */
  createdAt: Date;
  source: "rdap" | "whois";
}

/** Registration date of a registrable (base) domain; null when unknown. Never slower than its deadline. */
export interface DomainAgeLookup {
  lookup(baseDomain: string): Promise<DomainAge | null>;
}

/** Whole days from `createdAt` to `now`, rounded down; 0 for a date in the future. */
export function ageInDays(createdAt: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - createdAt.getTime()) / DAY_MS));
}

/** The record's two age fields; both null when the age is unknown. */
export function domainAgeFields(
  age: Pick<DomainAge, "createdAt"> | null,
  now: Date,
): Pick<CheckRecord, "domain_age_days" | "domain_created_at"> {
  return age
    ? { domain_age_days: ageInDays(age.createdAt, now), domain_created_at: formatTimestamp(age.createdAt) }
    : { domain_age_days: null, domain_created_at: null };
}
