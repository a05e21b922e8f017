/**
 * The check itself: what DNS and the registries say of a domain (`DomainFacts`, what the
 * record cache stores), the domain's verdict decided from those facts and the sources in
 * force when answering (`decideDomain`), then the address's adjustments (`forAddress`: a
 * role account's flag and weight), each verdict made by `decide()`. No HTTP, no
 * database: the API, the pages and the CLI are thin callers (through the record cache in
 * src/service/checking/cached-checker.ts).
 */

import { type DomainAgeLookup, domainAgeFields } from "./age.js";
import { CATEGORIES, hasCategory, PRECEDENCE } from "./categories.js";
import type { DnsResolver } from "./dns.js";
import type { EvidenceItem } from "./evidence.js";
import { explainAddress, explainDomain } from "./explain.js";
import { gatherSignals, type SignalSources, type Signals } from "./gathered-signals.js";
import type { ParsedInput } from "./input.js";
import type { Evidence, LearnedInfrastructure } from "./learned.js";
import type { DomainLists } from "./list-interfaces.js";
import { lookupMailRouting, type MailRouting } from "./mail-routing.js";
import { suffixFacts } from "./names.js";
import { type CheckRecord, formatTimestamp } from "./record.js";
import { type NameRules, neverReceivesMail } from "./reserved-names.js";
import { ADDRESS_SIGNALS } from "./signals/index.js";
import {
  type AddressSignal,
  heavier,
  NOTHING_WEIGHED,
  type SoftSignal,
  type Weighing,
} from "./signals/soft-signal.js";
import type { TypoIndex } from "./typo.js";
import { decide, type Verdict, type VerdictBasis, type VerdictStatus, verdictBasis } from "./verdict.js";

export interface CheckDeps extends NameRules {
  lists: DomainLists;
  typos: TypoIndex;
  resolver: DnsResolver;
  age?: DomainAgeLookup;
  clock: () => Date;
  /** Infrastructure learnt from traffic and the operator's overrides (src/service/checking/learned-snapshot.ts). */
  learned?: LearnedInfrastructure;
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
    case "mx_missing":
      return `${pointer ?? "MX records found"}, but DNS says no MX host exists (NXDOMAIN)`;
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
  for (const { key } of PRECEDENCE) {
    const name = signals.categories[key]?.name;
    if (name) return name;
  }
  return signals.mxProvider?.name ?? "";
}

type CategoryFlags = Pick<CheckRecord, (typeof CATEGORIES)[number]["flag"]>;

/** The category flags of the record (docs/api.md "The record", 9–15), in the record's order. */
function categoryFlags(signals: Signals): CategoryFlags {
  const flags: Partial<CategoryFlags> = {};
  const mxCategory = signals.mxProvider?.category;
  for (const category of CATEGORIES) {
    flags[category.flag] = hasCategory(category, signals.categories, mxCategory);
  }
  return flags as CategoryFlags;
}

/**
 * Builds the record from signals and verdict (pure; `now` stamps block_status_changed_at).
 * One object literal in the contract's field order: the record is made for every check.
 */
export function buildRecord(signals: Signals, final: Verdict, now: Date): CheckRecord {
  const { routing } = signals;
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
    ...categoryFlags(signals),
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

/** A domain's record with what its verdict said beside it. */
export interface DomainCheck {
  record: CheckRecord;
  status: VerdictStatus;
  /**
   * The heaviest soft signal of a domain decided by soft signals (null: none). It names a
   * `risky` record's verdict, and would name a clean record's should an address's signals
   * make it risky.
   */
  heaviest: SoftSignal | null;
  /** What the look-up saw of the domain's mail infrastructure, for learning. */
  evidence?: Evidence;
  /**
   * The evidence behind the answer (docs/api.md "Evidence (`explain=true`)"), made from the same signals and
   * basis when first asked and then kept: never made on an answer that does not ask.
   */
  explain(): readonly EvidenceItem[];
}

/** `make()` once, when first asked; what it was made from is let go then. */
function once<T>(make: () => T): () => T {
  let maker: (() => T) | undefined = make;
  let made: T | undefined;
  return () => {
    if (maker !== undefined) {
      made = maker();
      maker = undefined;
    }
    return made as T;
  };
}

/**
 * What DNS and the registries said of a domain: what the record cache stores. The
 * verdict is decided from it when answering (`decideDomain`), with the lists, overrides
 * and learned infrastructure in force then.
 */
export interface DomainFacts {
  routing: MailRouting;
  createdAt: Date | null;
}

/** The domain's check from its signals (pure; `now` stamps the record and ages the domain). */
function checkSignals(
  signals: Signals,
  sources: SignalSources,
  answered: MailRouting,
  now: Date,
): DomainCheck {
  const basis = verdictBasis(signals, now);
  const verdict = decide(basis);
  return {
    record: buildRecord(signals, verdict, now),
    status: verdict.status,
    heaviest: basis.row === null ? basis.soft.heaviest : null,
    evidence: signals.evidence,
    explain: once(() =>
      explainDomain({ signals, basis, risk: verdict.risk, sources, answered: answered.status, now }),
    ),
  };
}

/** Decides a domain's check from its facts and the sources in force now (pure, about 20 µs). */
export function decideDomain(
  domain: string,
  facts: DomainFacts,
  sources: SignalSources,
  now: Date,
): DomainCheck {
  return checkSignals(
    gatherSignals(sources, { domain, ...suffixFacts(domain) }, facts.routing, facts.createdAt),
    sources,
    facts.routing,
    now,
  );
}

/** The domain's mail routing as DNS says it (the facts without the domain's age). */
export function lookupRouting(domain: string, resolver: DnsResolver, rules: NameRules): Promise<MailRouting> {
  return lookupMailRouting(domain, suffixFacts(domain).baseDomain, resolver, rules);
}

/** Whether the domain is registered, so that asking a registry for its age makes sense. */
export function isRegistered(domain: string, routing: MailRouting): boolean {
  return routing.status !== "nxdomain" && !neverReceivesMail(domain);
}

/**
 * Checks a normalised domain: DNS first, then, for a registered domain, its age. The
 * record is the domain's: the per-address adjustments are made by `forAddress()`, so
 * that one cached domain record serves every address at that domain. (The service
 * does not wait for a slow registry: see src/service/checking/age-budget.ts.)
 */
export async function checkDomain(domain: string, deps: CheckDeps): Promise<DomainCheck> {
  const routing = await lookupRouting(domain, deps.resolver, deps);
  const age =
    deps.age && isRegistered(domain, routing)
      ? await deps.age.lookup(suffixFacts(domain).baseDomain).catch(() => null)
      : null;
  return decideDomain(domain, { routing, createdAt: age?.createdAt ?? null }, deps, deps.clock());
}

/** The basis of a domain's verdict as its check shows it: what an address's signals are weighed on. */
function domainBasis({ record, status, heaviest }: DomainCheck): VerdictBasis {
  if (status === "ok" || status === "risky") {
    return { row: null, soft: { risk: record.risk, heaviest }, mainCategory: record.reason };
  }
  return {
    row: { status, risk: record.risk, reason: record.reason, text: record.text },
    soft: NOTHING_WEIGHED,
    mainCategory: "",
  };
}

/** The address checks made of each domain check, by the signals seen (kept while the domain's check lives). */
const addressChecks = new WeakMap<DomainCheck, Map<string, DomainCheck>>();

/**
 * The domain's check as seen for one input: each address signal it shows (a role
 * account) sets its flag and is weighed on top of the domain's verdict by `decide()`,
 * so that text, reason, risk, block and status agree. `block_status_changed_at` stays
 * the domain's.
 */
export function forAddress(domain: DomainCheck, input: ParsedInput, lists: DomainLists): DomainCheck {
  if (input.localPart === null) return domain;
  const seen = ADDRESS_SIGNALS.filter((signal) => signal.seen(input, lists));
  if (seen.length === 0) return domain;
  // One check per domain check and signals seen: answer after answer the same record, as the domain's own.
  const name = seen.map((signal) => signal.flag).join(" ");
  let made = addressChecks.get(domain);
  if (made === undefined) {
    made = new Map();
    addressChecks.set(domain, made);
  }
  let check = made.get(name);
  if (check === undefined) {
    check = withAddressSignals(domain, seen);
    made.set(name, check);
  }
  return check;
}

/** The domain's check with the address signals `seen` weighed on top. */
function withAddressSignals(domain: DomainCheck, seen: readonly AddressSignal[]): DomainCheck {
  let address: Weighing = NOTHING_WEIGHED;
  const flags: Partial<Pick<CheckRecord, "is_role_based_email">> = {};
  for (const signal of seen) {
    address = { risk: address.risk + signal.weight, heaviest: heavier(address.heaviest, signal) };
    flags[signal.flag] = true;
  }
  const { status, valid, block, risk, text, reason } = decide(domainBasis(domain), address);
  const domainRisk = domain.record.risk;
  return {
    record: { ...domain.record, ...flags, valid, block, risk, text, reason },
    status,
    heaviest: heavier(domain.heaviest, address.heaviest),
    explain: once(() =>
      explainAddress(domain.explain(), domainRisk, risk, flags.is_role_based_email === true),
    ),
  };
}
