/**
 * The evidence behind a verdict (docs/api.md "Evidence (`explain=true`)"; the items' schema is
 * src/core/evidence.ts): made from the same gathered signals and verdict basis that
 * decided the record, never from the record's text. `explainDomain()` explains a domain's
 * check, `explainAddress()` adds what an address's own signals (a role account) did.
 *
 * Three promises, held by test/core/explain.* over generated worlds:
 * - an answer with `block: true` has at least one item;
 * - every flag that is true has the item that set it (the item's `flag`);
 * - the items that changed the risk carry what they added (`risk`), and those add up to
 *   the record's `risk`: the fixed row's item first, then the soft signals in their
 *   order, each adding its weight until the record's risk is reached (`heuristics`
 *   add 90, then 3 each; a temporary DNS failure keeps the sum below 80).
 */
import { domainToUnicode } from "node:url";
import { ageInDays } from "./age.js";
import { CATEGORIES, type CategoryDefinition, hasCategory, type ProviderCategory } from "./categories.js";
import type { EvidenceItem, EvidenceOf } from "./evidence.js";
import type { DisposableHint, ParkedOn, SignalSources, Signals } from "./gathered-signals.js";
import { type InfrastructureKind, NOTHING_LEARNED } from "./learned.js";
import type { RoutingStatus } from "./mail-routing.js";
import { formatTimestamp } from "./record.js";
import { reservedName } from "./reserved-names.js";
import type { DomainSignal } from "./signals/soft-signal.js";
import { type DomainBasis, FIXED_RISK, type FixedStatus, isTemporaryFailure } from "./verdict.js";

/** The curated list of MX provider host patterns (src/data/curated.ts reads it). */
export const MX_PROVIDER_LIST = "data/curated/mx-providers.txt";
/** The curated lists of known legitimate domains and suffixes. */
export const KNOWN_GOOD_LISTS: readonly string[] = [
  "data/curated/known-good.txt",
  "data/curated/known-good-suffixes.txt",
];

/** What a domain's evidence is made from: the check's signals and basis, its risk, and the sources that decided it. */
export interface DomainExplanation {
  signals: Signals;
  basis: DomainBasis;
  /** The domain's decided risk: the items' `risk` add up to it. */
  risk: number;
  sources: SignalSources;
  /** The routing status DNS answered, before a vanished provider's was distrusted. */
  answered: RoutingStatus;
  now: Date;
}

/** An item without its `risk` yet, and what it adds to the risk at most. */
interface Draft {
  item: EvidenceItem;
  weight: number;
}

const INFRASTRUCTURE_LABEL: Readonly<Record<InfrastructureKind | ParkedOn["kind"], string>> = {
  mx_host: "MX host",
  mx_ip: "MX address",
  ns: "name server",
  address: "address",
};

/** Each category's list, in the plural, and a provider of it, in the singular. */
const CATEGORY_WORDS: Readonly<Record<ProviderCategory, { list: string; one: string }>> = {
  forwarder: { list: "forwarding services", one: "a forwarding service" },
  free: { list: "free mailbox providers", one: "a free mailbox provider" },
  premium: { list: "paid mailbox providers", one: "a paid mailbox provider" },
  business: { list: "business mail providers", one: "a business mail provider" },
  isp: { list: "ISP mail domains", one: "an ISP" },
  email_api: { list: "email-API services", one: "an email-API service" },
  web_hosting: { list: "web hosts' mail domains", one: "a web host" },
};

/** A note ends the sentence: its own final full stop is dropped. */
function withNote(sentence: string, note: string | null): string {
  const text = note?.trim().replace(/\.+$/, "") ?? "";
  return text === "" ? `${sentence}.` : `${sentence}: ${text}.`;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function listItem(x: DomainExplanation): EvidenceOf<"list"> | undefined {
  const { disposable, domain } = x.signals;
  if (!disposable) return undefined;
  const { lists } = x.sources;
  const sources = disposable.sources.map((name) => {
    const since = lists.listedSince(disposable.entry, name);
    return { name, since: since ? formatTimestamp(since) : null };
  });
  const subject = domain === disposable.entry ? domain : `${domain} is under ${disposable.entry}, which`;
  const where =
    sources.length === 1
      ? `the disposable-domain list ${disposable.sources[0]}`
      : `${plural(sources.length, "disposable-domain list", "disposable-domain lists")} (${disposable.sources.join(", ")})`;
  return {
    kind: "list",
    detail: `${subject} is on ${where}.`,
    list: "disposable",
    entry: disposable.entry,
    sources,
    flag: "is_disposable",
  };
}

function reservedItem(domain: string): EvidenceOf<"list"> {
  const reserved = reservedName(domain);
  const entry = reserved?.name ?? domain;
  const source = reserved?.source ?? "RFC 2606";
  return {
    kind: "list",
    detail: `${domain === entry ? domain : `${domain} is under ${entry}, which`} is reserved (${source}) and never receives mail.`,
    list: "reserved",
    entry,
    sources: source.split(", ").map((name) => ({ name, since: null })),
  };
}

function infrastructureItem(hint: DisposableHint, x: DomainExplanation): EvidenceOf<"infrastructure"> {
  const learned = x.sources.learned ?? NOTHING_LEARNED;
  const label = INFRASTRUCTURE_LABEL[hint.kind];
  const examples = hint.learnt
    ? (learned.learntExamples?.(hint.kind, hint.value) ?? []).slice(0, 5)
    : [hint.provider];
  const detail = !hint.learnt
    ? `Its ${label} ${hint.value} belongs to the disposable service ${hint.provider}.`
    : examples.length > 0
      ? `Its ${label} ${hint.value} was learnt disposable from traffic: it also serves ${examples.join(", ")}.`
      : `Its ${label} ${hint.value} was learnt disposable from traffic: it serves the disposable service ${hint.provider}.`;
  return {
    kind: "infrastructure",
    detail,
    shared: hint.value,
    shared_kind: hint.kind,
    service: hint.provider,
    learnt: hint.learnt,
    examples,
    flag: "is_disposable",
  };
}

function overrideItem(x: DomainExplanation): EvidenceOf<"override"> | undefined {
  const { operator, account, domain, baseDomain } = x.signals;
  // Only set where the operator has no override (gathered-signals.ts): the operator's wins.
  if (account && operator === undefined) {
    const what = account.value === domain ? domain : `${account.value} and its subdomains`;
    return {
      kind: "override",
      detail: `The account's own list ${account.action === "allow" ? "allows" : "blocks"} ${what}.`,
      scope: "account",
      id: `domain:${account.value}`,
      action: account.action,
      note: null,
    };
  }
  if (operator === undefined) return undefined;
  const learned = x.sources.learned ?? NOTHING_LEARNED;
  const own = learned.overrideNote?.("domain", domain);
  const value = own !== undefined || domain === baseDomain ? domain : baseDomain;
  const note = (own ?? learned.overrideNote?.("domain", value))?.note ?? null;
  const verb = operator === "allow" ? "allowed" : "denied";
  const what = value === domain ? domain : `${value} and its subdomains`;
  return {
    kind: "override",
    detail: withNote(`The operator ${verb} ${what}`, note),
    scope: "operator",
    id: `domain:${value}`,
    action: operator,
    note,
  };
}

type DnsFinding = EvidenceOf<"dns">["finding"];

function dnsItem(finding: DnsFinding, x: DomainExplanation): EvidenceOf<"dns"> {
  const { domain, routing } = x.signals;
  const hosts = finding === "fallback" ? [] : routing.hosts.map((h) => h.host);
  const named = hosts.join(", ");
  const details: Record<DnsFinding, string> = {
    nxdomain: `DNS says ${domain} does not exist (NXDOMAIN).`,
    null_mx: `${domain} publishes a null MX (RFC 7505): it accepts no email.`,
    no_mail: `${domain} has neither an MX record nor an A/AAAA record, so it cannot receive email.`,
    mx_missing: `DNS says none of the MX hosts of ${domain} exists (${named}).`,
    mx_private: `The mail hosts of ${domain}${named === "" ? "" : ` (${named})`} have no public address: only loopback, private, link-local, CGNAT, multicast or reserved ones, or names outside the public DNS (such as .internal or .local). Mail from the internet cannot reach them.`,
    mx_unresolvable: `None of the MX hosts of ${domain} has an address (${named}).`,
    fallback: `${domain} has no MX record, so mail goes to the domain's own address.`,
    dns_timeout: `DNS did not answer in time, so ${domain} could not be checked right now.`,
    dns_failure:
      x.answered === routing.status
        ? `DNS failed (SERVFAIL or refused), so ${domain} could not be checked right now.`
        : `DNS says ${domain} takes no mail, but a listed mailbox provider does not vanish: the resolver is taken to be failing.`,
  };
  return { kind: "dns", detail: details[finding], finding, hosts };
}

function parkedItem(x: DomainExplanation): EvidenceOf<"parked"> | undefined {
  const { parking, parkedOn } = x.signals;
  if (parking === undefined || parkedOn === undefined) return undefined;
  return {
    kind: "parked",
    detail: `Its ${INFRASTRUCTURE_LABEL[parkedOn.kind]} ${parkedOn.value} belongs to the parking service ${parking}.`,
    service: parking,
    shared: parkedOn.value,
    shared_kind: parkedOn.kind,
    flag: "is_parked",
  };
}

/** Less than this many days old is young (the young-domain signals). */
const YOUNG_DAYS = 30;

function ageItem(x: DomainExplanation): EvidenceOf<"age"> | undefined {
  const { createdAt, baseDomain } = x.signals;
  if (createdAt === null) return undefined;
  const days = ageInDays(createdAt, x.now);
  if (days >= YOUNG_DAYS) return undefined;
  return {
    kind: "age",
    detail: `${baseDomain} was registered ${days === 0 ? "today" : `${plural(days, "day", "days")} ago`}.`,
    created_at: formatTimestamp(createdAt),
    age_days: days,
  };
}

function typoItem(x: DomainExplanation): EvidenceOf<"typo"> | undefined {
  const { typos, domain, baseDomain } = x.signals;
  if (typos.length === 0) return undefined;
  const lookAlike = x.sources.typos.lookAlikeOf(baseDomain);
  const unicode = domainToUnicode(domain);
  const shown = unicode !== "" && unicode !== domain ? `${unicode} (${domain})` : domain;
  return {
    kind: "typo",
    detail:
      lookAlike === undefined
        ? `${domain} looks like a typo of ${typos.join(" or ")}.`
        : `${shown} is written with characters drawn like those of ${lookAlike}: a look-alike name.`,
    suggestions: [...typos],
  };
}

/** The MX host whose provider the domain's MX provider is (the first that matches one, as the signals took it). */
function providerHost(x: DomainExplanation): string {
  const { routing } = x.signals;
  if (routing.status === "fallback") return "";
  for (const { host } of routing.hosts) {
    if (x.sources.lists.hostFacts(host).mxProvider !== undefined) return host;
  }
  return "";
}

/** The category's item: the domain's own listing, else its MX provider's when that is of the category. */
function categoryItem(
  category: CategoryDefinition<ProviderCategory>,
  x: DomainExplanation,
): EvidenceOf<"provider"> | undefined {
  const { categories, mxProvider, domain } = x.signals;
  const words = CATEGORY_WORDS[category.key];
  const match = categories[category.key];
  if (match) {
    const subject = domain === match.entry ? domain : `${domain} is under ${match.entry}, which`;
    return {
      kind: "provider",
      detail: `${subject} is on the list of ${words.list}${match.name ? ` as ${match.name}` : ""}.`,
      category: category.key,
      provider: match.name,
      via: "domain",
      matched: match.entry,
      lists: [...match.sources],
      flag: category.flag,
    };
  }
  if (mxProvider?.category !== category.key) return undefined;
  const host = providerHost(x);
  const flagged = hasCategory(category, categories, mxProvider.category);
  return {
    kind: "provider",
    detail: `Its MX host ${host} belongs to ${mxProvider.name}, ${words.one}.`,
    category: category.key,
    provider: mxProvider.name,
    via: "mx",
    matched: host,
    lists: [MX_PROVIDER_LIST],
    ...(flagged ? { flag: category.flag } : {}),
  };
}

function mailHostItem(x: DomainExplanation): EvidenceOf<"provider"> | undefined {
  const { mxProvider } = x.signals;
  if (!mxProvider || mxProvider.category !== null) return undefined;
  const host = providerHost(x);
  return {
    kind: "provider",
    detail: `Its MX host ${host} belongs to the mail provider ${mxProvider.name}.`,
    category: "mail_host",
    provider: mxProvider.name,
    via: "mx",
    matched: host,
    lists: [MX_PROVIDER_LIST],
  };
}

function selfHostedItem(x: DomainExplanation): EvidenceOf<"provider"> | undefined {
  const { selfHosted, routing, domain, baseDomain } = x.signals;
  if (!selfHosted) return undefined;
  const fallback = routing.status === "fallback";
  const host = fallback
    ? domain
    : (routing.hosts.find((h) => x.sources.lists.hostFacts(h.host).baseDomain === baseDomain)?.host ?? "");
  return {
    kind: "provider",
    detail: fallback
      ? `Mail goes to ${domain} itself, which matches no known provider: it runs its own mail.`
      : `Its MX host ${host} is under ${baseDomain} itself and matches no known provider: it runs its own mail.`,
    category: "self_hosted",
    provider: null,
    via: "mx",
    matched: host,
    lists: [],
    flag: "is_self_hosted",
  };
}

function knownGoodItem(x: DomainExplanation): EvidenceOf<"provider"> | undefined {
  const { knownGood, domain } = x.signals;
  if (!knownGood) return undefined;
  return {
    kind: "provider",
    detail: `${domain} is a known legitimate domain: never disposable, parked or a typo.`,
    category: "known_good",
    provider: null,
    via: "domain",
    matched: domain,
    lists: [...KNOWN_GOOD_LISTS],
  };
}

function unknownItem(x: DomainExplanation): EvidenceOf<"provider"> {
  return {
    kind: "provider",
    detail: `No list knows ${x.signals.domain} or its mail provider, and its mail is not self-hosted.`,
    category: "unknown",
    provider: null,
    via: "domain",
    matched: "",
    lists: [],
  };
}

function categoryNamed(key: ProviderCategory): CategoryDefinition<ProviderCategory> {
  return CATEGORIES.find((c) => c.key === key) as CategoryDefinition<ProviderCategory>;
}

/** Each domain signal's item and the key it is kept under (one item per key); every DOMAIN_SIGNALS key has one. */
export const SIGNAL_ITEMS: Readonly<
  Record<string, (x: DomainExplanation) => [key: string, item: EvidenceItem | undefined]>
> = {
  mx_unresolvable: (x) => ["dns", dnsItem("mx_unresolvable", x)],
  possible_typo: (x) => ["typo", typoItem(x)],
  very_young_domain: (x) => ["age", ageItem(x)],
  young_domain: (x) => ["age", ageItem(x)],
  forwarder: (x) => ["provider:forwarder", categoryItem(categoryNamed("forwarder"), x)],
  email_api: (x) => ["provider:email_api", categoryItem(categoryNamed("email_api"), x)],
  fallback_mx: (x) => ["dns", dnsItem("fallback", x)],
  unknown_domain: (x) => ["provider:unknown", unknownItem(x)],
};

/** Items by key, in the order they were first added. */
class Drafts {
  private readonly drafts = new Map<string, Draft>();

  add(key: string, item: EvidenceItem | undefined, weight = 0): void {
    if (item === undefined || this.drafts.has(key)) return;
    this.drafts.set(key, { item, weight });
  }

  /**
   * The items, each that changed the risk with what it added: in order, each adds its
   * weight until `total` is reached, so the parts add up to the record's risk.
   */
  apportion(total: number): EvidenceItem[] {
    const drafts = [...this.drafts.values()];
    const shares = drafts.map(() => 0);
    let left = total;
    drafts.forEach((draft, index) => {
      const share = Math.max(0, Math.min(draft.weight, left));
      shares[index] = share;
      left -= share;
    });
    // Never left over by the rows' arithmetic; should a rule change, the first item takes the rest.
    if (left > 0 && drafts.length > 0) shares[0] = (shares[0] ?? 0) + left;
    return drafts.map(({ item }, index) => {
      const share = shares[index] ?? 0;
      return share > 0 ? { ...item, risk: share } : item;
    });
  }
}

/** An item with its key and what it adds at most. */
type Keyed = [key: string, item: EvidenceItem | undefined, weight: number];

/** The item of the fixed status the domain matched, or its items (`heuristics`: one per heuristic). */
function rowItems(status: FixedStatus, x: DomainExplanation): Keyed[] {
  const risk = x.basis.row?.risk ?? 0;
  switch (status) {
    case "reserved":
      return [["reserved", reservedItem(x.signals.domain), risk]];
    case "nxdomain":
    case "null_mx":
    case "no_mail":
    case "mx_missing":
    case "mx_private":
      return [["dns", dnsItem(status, x), risk]];
    case "denied":
      return [["override", overrideItem(x), risk]];
    case "disposable":
      return [["list", listItem(x), risk]];
    case "heuristics":
      return x.signals.disposableHints.map((hint, index) => [
        `infrastructure:${index}`,
        infrastructureItem(hint, x),
        index === 0 ? FIXED_RISK.disposableHeuristics : FIXED_RISK.disposableHeuristicsStep,
      ]);
    case "parked":
      return [["parked", parkedItem(x), risk]];
    case "dns_timeout":
    case "dns_failure":
      return [["dns", dnsItem(status, x), FIXED_RISK.dnsUnknown]];
  }
}

/** The evidence of a domain's check (see the file's comment for what it promises). */
export function explainDomain(x: DomainExplanation): EvidenceItem[] {
  const { signals, basis } = x;
  const drafts = new Drafts();
  const row = basis.row;
  if (row !== null) for (const [key, item, weight] of rowItems(row.status, x)) drafts.add(key, item, weight);
  // The soft signals add to the risk of a DNS failure, `risky` and `ok` only; elsewhere they are evidence of facts.
  const weighs = row === null || isTemporaryFailure(row.status);
  for (const signal of basis.weighed as readonly DomainSignal[]) {
    const explain = SIGNAL_ITEMS[signal.key];
    if (explain === undefined) throw new Error(`the signal ${signal.key} has no evidence (SIGNAL_ITEMS)`);
    const [key, item] = explain(x);
    // "Nothing vouches for it" says something only when it weighs.
    if (weighs || key !== "provider:unknown") drafts.add(key, item, weighs ? signal.weight : 0);
  }
  // What set a flag or a field without changing the risk.
  drafts.add("override", overrideItem(x));
  drafts.add("list", listItem(x));
  signals.disposableHints.forEach((hint, index) => {
    drafts.add(`infrastructure:${index}`, infrastructureItem(hint, x));
  });
  drafts.add("parked", parkedItem(x));
  if (signals.mxUnresolvable) drafts.add("dns", dnsItem("mx_unresolvable", x));
  if (signals.routing.status === "fallback") drafts.add("dns", dnsItem("fallback", x));
  drafts.add("typo", typoItem(x));
  drafts.add("age", ageItem(x));
  for (const category of CATEGORIES) drafts.add(`provider:${category.key}`, categoryItem(category, x));
  drafts.add("provider:mail_host", mailHostItem(x));
  drafts.add("provider:self_hosted", selfHostedItem(x));
  drafts.add("provider:known_good", knownGoodItem(x));
  return drafts.apportion(x.risk);
}

/** The role account's item (what the address's signals set), with what it added to the domain's risk. */
export function roleItem(added: number): EvidenceOf<"role"> {
  return {
    kind: "role",
    detail: "The address is a role account (admin@, info@ …), not a person's mailbox.",
    flag: "is_role_based_email",
    ...(added > 0 ? { risk: added } : {}),
  };
}

/** An address's evidence: its domain's, then the role account's item with what it added. */
export function explainAddress(
  domainItems: readonly EvidenceItem[],
  domainRisk: number,
  addressRisk: number,
  role: boolean,
): EvidenceItem[] {
  return role ? [...domainItems, roleItem(addressRisk - domainRisk)] : [...domainItems];
}
