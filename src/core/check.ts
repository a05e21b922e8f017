/**
 * The check itself: a parsed input in, the domain check record out. No HTTP, no
 * database: the API, the pages and the CLI are thin callers (through the cache in
 * caching-checker.ts). DNS and domain age are looked up in parallel.
 */
import { baseDomainOf } from "../data/names.js";
import { type DomainAgeLookup, domainAgeFields } from "./age/index.js";
import type { DnsResolver } from "./dns.js";
import type { ParsedInput } from "./input.js";
import type { DomainLists } from "./lists.js";
import { lookupMailRouting, type MailRouting } from "./mail-routing.js";
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

function mxFields(domain: string, routing: MailRouting) {
  const hosts = routing.hosts;
  const first = hosts[0];
  return {
    mx_host: first?.host ?? "",
    mx_ip: first?.ips[0] ?? "",
    mx_info: mxInfo(domain, routing),
    mx_fallback: routing.status === "fallback",
    mx_hosts: hosts.map((h) => h.host),
    mx_ips: [...new Set(hosts.flatMap((h) => h.ips))],
    mx_priorities: Object.fromEntries(hosts.map((h) => [h.host, h.priority])),
  };
}

function emailProvider(signals: Signals): string {
  const own = ["free", "premium", "isp", "business", "email_api", "web_hosting", "forwarder"] as const;
  for (const category of own) {
    const name = signals.categories[category]?.name;
    if (name) return name;
  }
  return signals.mxProvider?.name ?? "";
}

/** Builds the record from signals and verdict (pure; `now` stamps block_status_changed_at). */
export function buildRecord(signals: Signals, final: Verdict, now: Date): CheckRecord {
  const c = signals.categories;
  const mxCategory = signals.mxProvider?.category;
  const isProvider = Boolean(c.free || c.premium || c.isp);
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
    ...mxFields(signals.domain, signals.routing),
    email_provider: emailProvider(signals),
    disposable_provider: signals.disposable?.entry ?? signals.disposableHints[0]?.provider ?? null,
    possible_typo: signals.typos,
    ...domainAgeFields(signals.createdAt ? { createdAt: signals.createdAt } : null, now),
    block_status_changed_at: formatTimestamp(now),
  };
}

/**
 * Checks a normalised domain. The record is the domain's: the per-address
 * role adjustment is applied by `forAddress()` so that one cached domain record
 * serves every address at that domain.
 */
export async function checkDomain(domain: string, deps: CheckDeps): Promise<CheckRecord> {
  const baseDomain = baseDomainOf(domain);
  const [routing, age] = await Promise.all([
    lookupMailRouting(domain, baseDomain, deps.resolver),
    deps.age?.lookup(baseDomain).catch(() => null) ?? Promise.resolve(null),
  ]);
  const now = deps.clock();
  const signals = gatherSignals(deps, domain, baseDomain, routing, age?.createdAt ?? null);
  return buildRecord(signals, decide(signals, now), now);
}

/** The domain record as seen for one input: sets the role flag and its risk for a role address. */
export function forAddress(record: CheckRecord, input: ParsedInput, lists: DomainLists): CheckRecord {
  if (input.localPart === null || !lists.isRoleLocalPart(input.localPart)) return record;
  const verdict = withRoleAccount(record);
  return { ...record, is_role_based_email: true, risk: verdict.risk, block: verdict.block };
}
