/**
 * The verdict: one primary row of docs/api.md §4.1 (first match wins) and the risk score
 * from the documented weight table. Pure functions of the signals; docs/verdicts.md
 * is the table in prose and must be kept in step with this file.
 */
import { ageInDays } from "./age.js";
import type { Signals } from "./signals.js";

/** The reasons of a record made while DNS failed temporarily (row 7). */
const DNS_TIMEOUT = "DNS timeout";
const DNS_FAILURE = "DNS failure";

/** Whether the record was made during a temporary DNS failure (timeout, SERVFAIL, REFUSED). */
export function isTemporaryFailure(record: { reason: string }): boolean {
  return record.reason === DNS_TIMEOUT || record.reason === DNS_FAILURE;
}

export interface Verdict {
  valid: boolean;
  block: boolean;
  risk: number;
  text: string;
  reason: string;
}

/** Risk weights for a deliverable domain with no list verdict; summed, then clamped to 0–100. */
export const RISK_WEIGHTS = {
  /** Not a known provider and not self-hosted: nothing vouches for the domain. */
  unknownDomain: 10,
  /** No MX record: mail falls back to the domain's own address. */
  fallbackMx: 25,
  /** MX records exist, but none of their hosts resolves. */
  mxUnresolvable: 40,
  /** A forwarding / relay service: the real mailbox is hidden. */
  forwarder: 35,
  /** An email-sending API's domain is not a mailbox. */
  emailApi: 30,
  /** Looks like a misspelling of a popular mailbox domain. */
  possibleTypo: 45,
  /** Registered less than 30 days ago. */
  youngDomain: 25,
  /** Registered less than 7 days ago (instead of youngDomain). */
  veryYoungDomain: 50,
  /** The address is a role account (admin@, info@ …); applied per address, not per domain. */
  roleAccount: 10,
} as const;

/** Fixed risks of the rows of docs/api.md §4.1. */
export const FIXED_RISK = {
  invalid: 100,
  disposableListed: 95,
  /** Heuristics: 90 for one independent signal, +3 for each further one. */
  disposableHeuristics: 90,
  parked: 85,
  /** Temporary DNS failure: uncertainty, then the other signals, kept within 50–79. */
  dnsUnknown: 55,
} as const;

export const BLOCK_THRESHOLD = 80;

export type RiskLevel = "LOW" | "MEDIUM" | "HIGH";

export function riskLevel(risk: number): RiskLevel {
  return risk >= 70 ? "HIGH" : risk >= 30 ? "MEDIUM" : "LOW";
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** Additive risk of the soft signals, with the reason of the heaviest one. */
function softRisk(signals: Signals, now: Date): { risk: number; text: string; reason: string } | null {
  const w = RISK_WEIGHTS;
  const parts: { weight: number; text: string; reason: string }[] = [];
  const ageDays = signals.createdAt ? ageInDays(signals.createdAt, now) : null;
  if (signals.knownGood) return null;
  if (signals.mxUnresolvable) {
    parts.push({ weight: w.mxUnresolvable, text: "Mail servers do not resolve", reason: "MX unresolvable" });
  }
  if (signals.typos.length > 0) {
    parts.push({
      weight: w.possibleTypo,
      text: "Possible typo of a popular domain",
      reason: "Possible typo",
    });
  }
  if (ageDays !== null && ageDays < 7) {
    parts.push({ weight: w.veryYoungDomain, text: "Newly registered domain", reason: "Domain age < 7 days" });
  } else if (ageDays !== null && ageDays < 30) {
    parts.push({ weight: w.youngDomain, text: "Newly registered domain", reason: "Domain age < 30 days" });
  }
  if (signals.categories.forwarder || signals.mxProvider?.category === "forwarder") {
    parts.push({ weight: w.forwarder, text: "Email forwarding service", reason: "Forwarder" });
  }
  if (signals.categories.email_api) {
    parts.push({ weight: w.emailApi, text: "Email API service domain", reason: "Email API" });
  }
  if (signals.routing.status === "fallback") {
    parts.push({
      weight: w.fallbackMx,
      text: "No MX record, mail goes to the domain itself",
      reason: "Fallback MX",
    });
  }
  if (!isVouchedFor(signals)) {
    parts.push({ weight: w.unknownDomain, text: "Looks okay", reason: "Unknown domain" });
  }
  if (parts.length === 0) return null;
  const heaviest = parts.reduce((a, b) => (b.weight > a.weight ? b : a));
  return { risk: parts.reduce((sum, p) => sum + p.weight, 0), text: heaviest.text, reason: heaviest.reason };
}

function isVouchedFor(signals: Signals): boolean {
  const c = signals.categories;
  return Boolean(
    signals.knownGood ||
      c.free ||
      c.premium ||
      c.business ||
      c.isp ||
      c.web_hosting ||
      c.email_api ||
      c.forwarder ||
      signals.mxProvider ||
      signals.selfHosted,
  );
}

/** The reason of a clean record: the domain's main category. */
export function mainCategory(signals: Signals): string {
  const c = signals.categories;
  if (c.free) return "Public free provider";
  if (c.premium) return "Public premium provider";
  if (c.isp) return "ISP email";
  if (c.business) return "Business provider";
  if (c.web_hosting) return "Web hosting email";
  if (signals.mxProvider) {
    const byCategory: Record<string, string> = {
      business: "Business provider",
      web_hosting: "Web hosting email",
      email_api: "Email API",
      free: "Public free provider",
      premium: "Public premium provider",
      isp: "ISP email",
      forwarder: "Forwarder",
    };
    return byCategory[signals.mxProvider.category ?? ""] ?? `Hosted by ${signals.mxProvider.name}`;
  }
  if (signals.selfHosted) return "Self-hosted";
  if (signals.knownGood) return "Known domain";
  return "Valid domain";
}

export function decide(signals: Signals, now: Date): Verdict {
  const { status } = signals.routing;
  if (status === "nxdomain") {
    return invalid("Domain does not exist", "NXDOMAIN");
  }
  if (status === "null_mx") return invalid("Domain does not accept email", "Null MX");
  if (status === "no_mail") return invalid("Domain does not accept email", "No MX or A record");
  if (signals.disposable) {
    return blocked(FIXED_RISK.disposableListed, "Disposable / temporary domain", "Disposable");
  }
  const hints = signals.disposableHints.length;
  if (hints > 0) {
    const risk = Math.min(99, FIXED_RISK.disposableHeuristics + 3 * (hints - 1));
    return blocked(risk, "Disposable / temporary domain", `Heuristics x${hints}`);
  }
  if (signals.parking) return blocked(FIXED_RISK.parked, "Parked domain", "Parked");
  const soft = softRisk(signals, now);
  if (status === "dns_timeout" || status === "dns_failure") {
    const risk = clamp(FIXED_RISK.dnsUnknown + (soft?.risk ?? 0), 50, 79);
    return {
      valid: true,
      block: risk >= BLOCK_THRESHOLD,
      risk,
      text: "Could not be checked right now",
      reason: status === "dns_timeout" ? DNS_TIMEOUT : DNS_FAILURE,
    };
  }
  const risk = clamp(soft?.risk ?? 0, 0, 100);
  if (soft === null || risk < 30) {
    return { valid: true, block: false, risk, text: "Looks okay", reason: mainCategory(signals) };
  }
  return { valid: true, block: risk >= BLOCK_THRESHOLD, risk, text: soft.text, reason: soft.reason };
}

function invalid(text: string, reason: string): Verdict {
  return { valid: false, block: true, risk: FIXED_RISK.invalid, text, reason };
}

function blocked(risk: number, text: string, reason: string): Verdict {
  return { valid: true, block: true, risk, text, reason };
}

/** Raises a record's risk for a role account (admin@, info@ …); a per-address adjustment. */
export function withRoleAccount(verdict: Verdict): Verdict {
  if (!verdict.valid) return verdict;
  const risk = Math.min(100, verdict.risk + RISK_WEIGHTS.roleAccount);
  return { ...verdict, risk, block: verdict.block || risk >= BLOCK_THRESHOLD };
}
