/**
 * The check itself: a parsed input in, the domain check record out. No HTTP, no
 * database: the API, the pages and the CLI are thin callers (through the cache in
 * caching-checker.ts). DNS and domain age are looked up in parallel.
 */

import { type DomainAgeLookup, domainAgeFields } from "./age.js";
import type { DnsResolver } from "./dns.js";
import type { ParsedInput } from "./input.js";
import type { DomainLists } from "./lists.js";
import { lookupMailRouting, type MailRouting } from "./mail-routing.js";
import { suffixFacts } from "./names.js";
import { type CheckRecord, formatTimestamp } from "./record.js";
import { gatherSignals, type Signals } from "./signals.js";
import type { TypoIndex } from "./typo.js";
import { decide, type Verdict, withRoleAccount } from "./verdict.js";

export interface CheckDeps {
  lists: DomainLists;
  typos: TypoIndex;
  resolver: DnsResolver;
  age?: DomainAgeLookup;
  clock: () => Date;
}

function mxInfo(domain: string, routing: MailRouting): string {
  const first = routing.hosts[0];
  const pointer = first && `Using MX pointer ${first.host} from DNS with priority: ${first.priority}`;
  switch (routing.status) {
    case "mx":
      return pointer ?? "";
    case "fallback":
      return `No MX record found, using domain ${domain} as fallback`;
    case "null_mx":
      return "Domain publishes a null MX (RFC 7505): it accepts no email";
    case "no_mail":
      return "No MX record and no A/AAAA record found";
    case "nxdomain":
      return "Domain does not exist (NXDOMAIN)";
    case "dns_timeout":
      return pointer
        ? `${pointer}, but the look-up of its address did not answer in time`
        : "DNS did not answer in time; MX unknown";
    case "dns_failure":
      return pointer
        ? `${pointer}, but the look-up of its address failed (SERVFAIL or refused)`
        : "DNS lookup failed (SERVFAIL or refused); MX unknown";
  }
}

function emailProvider(signals: Signals): string {
  const own = ["free", "premium", "isp", "business", "email_api", "web_hosting", "forwarder"] as const;
  for (const category of own) {
    const name = signals.categories[category]?.name;
    if (name) return name;
  }
  return signals.mxProvider?.name ?? "";
}

/**
 * Builds the record from signals and verdict (pure; `now` stamps block_status_changed_at).
 * One object literal in the contract's field order: the record is made for every check.
 */
export function buildRecord(signals: Signals, final: Verdict, now: Date): CheckRecord {
  const c = signals.categories;
  const { routing } = signals;
  const mxCategory = signals.mxProvider?.category;
  const isProvider = Boolean(c.free || c.premium || c.isp);
  const hosts: string[] = [];
  const ips = new Set<string>();
  // A dictionary keyed by names from DNS: no prototype, so `__proto__` is a key like any
  // other, and no hidden class per distinct host name (which made this the costliest field).
  const priorities: Record<string, number> = Object.create(null);
  for (const { host, priority, ips: hostIps } of routing.hosts) {
    hosts.push(host);
    for (const ip of hostIps) ips.add(ip);
    priorities[host] = priority;
  }
  const first = routing.hosts[0];
  const age = domainAgeFields(signals.createdAt ? { createdAt: signals.createdAt } : null, now);
  return {
    valid: final.valid,
    block: final.block,
    domain: signals.domain,
    base_domain: signals.baseDomain,
    text: final.text,
    reason: final.reason,
    risk: final.risk,
    is_disposable: Boolean(signals.disposable) || signals.disposableHints.length > 0,
    is_email_forwarder: Boolean(c.forwarder) || mxCategory === "forwarder",
    is_public_free: Boolean(c.free),
    is_public_premium: Boolean(c.premium),
    is_business_provider: Boolean(c.business) || (mxCategory === "business" && !isProvider),
    is_isp_email: Boolean(c.isp),
    is_email_api: Boolean(c.email_api) || mxCategory === "email_api",
    is_web_hosting_email: Boolean(c.web_hosting) || mxCategory === "web_hosting",
    is_self_hosted: signals.selfHosted,
    is_parked: signals.parking !== undefined,
    is_role_based_email: false,
    mx_host: first?.host ?? "",
    mx_ip: first?.ips[0] ?? "",
    mx_info: mxInfo(signals.domain, routing),
    mx_fallback: routing.status === "fallback",
    mx_hosts: hosts,
    mx_ips: [...ips],
    mx_priorities: priorities,
    email_provider: emailProvider(signals),
    disposable_provider: signals.disposable?.entry ?? signals.disposableHints[0]?.provider ?? null,
    possible_typo: signals.typos,
    domain_age_days: age.domain_age_days,
    domain_created_at: age.domain_created_at,
    block_status_changed_at: formatTimestamp(now),
  };
}

/**
 * Checks a normalised domain. The record is the domain's: the per-address
 * role adjustment is applied by `forAddress()` so that one cached domain record
 * serves every address at that domain.
 */
export async function checkDomain(domain: string, deps: CheckDeps): Promise<CheckRecord> {
  const { baseDomain, isPublicSuffix } = suffixFacts(domain);
  // Both started before either is awaited: DNS and the registries are asked in parallel.
  const ageLookup = deps.age?.lookup(baseDomain).catch(() => null);
  const routing = await lookupMailRouting(domain, baseDomain, deps.resolver);
  const age = ageLookup === undefined ? null : await ageLookup;
  const now = deps.clock();
  const signals = gatherSignals(
    deps,
    { domain, baseDomain, isPublicSuffix },
    routing,
    age?.createdAt ?? null,
  );
  return buildRecord(signals, decide(signals, now), now);
}

/** The domain record as seen for one input: sets the role flag and its risk for a role address. */
export function forAddress(record: CheckRecord, input: ParsedInput, lists: DomainLists): CheckRecord {
  if (input.localPart === null || !lists.isRoleLocalPart(input.localPart)) return record;
  const verdict = withRoleAccount(record);
  return { ...record, is_role_based_email: true, risk: verdict.risk, block: verdict.block };
}
