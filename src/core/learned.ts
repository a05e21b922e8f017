/**
 * Learning disposable infrastructure from traffic (docs/verdicts.md, "Learned
 * infrastructure"): what a fresh check saw of a domain's mail routing (`Evidence`), the
 * rule by which infrastructure becomes disposable (`isLearnedDisposable`), and what was
 * learnt as the check sees it (`LearnedInfrastructure`, data the service passes in:
 * src/service/checking/learned-snapshot.ts). Pure: no store, no clock.
 */
import { isIP } from "node:net";

/** What a piece of mail infrastructure is: an MX host name, an MX host's address, a name server. */
export type InfrastructureKind = "mx_host" | "mx_ip" | "ns";

/** A domain's listed status as evidence: listed disposable, known-good or a provider, or neither. */
export type ListedStatus = "disposable" | "good" | "unknown";

/**
 * The mail routing a fresh check used, against the domain's listed status. Known
 * providers' hosts (curated MX providers, forwarders, parking, hosts under known-good
 * domains) and the domain's own hosts are left out: they can never become disposable.
 */
export interface Evidence {
  /** The domain the evidence is about: the checked domain's registrable (base) domain. */
  domain: string;
  mxHosts: string[];
  mxIps: string[];
  nameServers: string[];
  listed: ListedStatus;
  /** For a listed disposable domain, the list entry that matched (its service). */
  service: string | null;
}

/** The operator's word on a domain: never blocked by lists or heuristics, or always blocked. */
export type DomainOverride = "allow" | "deny";

/**
 * The entry of the asking key's account's own list that matched a domain
 * (docs/accounts.md "The account's list"): the domain it was made for, and its word.
 */
export interface AccountOverride {
  value: string;
  action: DomainOverride;
}

/** An account's own list as the check sees it: matched like the operator's domain overrides. */
export interface AccountList {
  /** The entry of this domain, else of its base domain; undefined: none. */
  entryFor(domain: string, baseDomain: string): AccountOverride | undefined;
}

/** The override in force for a domain: the operator's, else the asking account's list's. */
export function overrideOf(signals: {
  operator?: DomainOverride | undefined;
  account?: AccountOverride | undefined;
}): DomainOverride | undefined {
  return signals.operator ?? signals.account?.action;
}

/** What the check asks of what was learnt. */
export interface LearnedInfrastructure {
  /** The disposable service learnt for this infrastructure; undefined: not disposable. */
  disposableService(kind: InfrastructureKind, value: string): string | undefined;
  /** Whether the operator marked this infrastructure never disposable (also for the curated hint). */
  neverDisposable(kind: InfrastructureKind, value: string): boolean;
  /** The operator's override of this domain (or its base domain), if any. */
  domainOverride(domain: string, baseDomain: string): DomainOverride | undefined;
  /** Up to five listed disposable domains seen on learnt infrastructure, for the evidence; absent: none known. */
  learntExamples?(kind: InfrastructureKind, value: string): readonly string[];
  /** The operator's override of exactly this kind and value, with its note, for the evidence. */
  overrideNote?(kind: OverrideKind, value: string): OverrideNote | undefined;
}

/** An override as the evidence names it. */
export interface OverrideNote {
  action: OverrideAction;
  note: string | null;
}

export const NOTHING_LEARNED: LearnedInfrastructure = Object.freeze({
  disposableService: () => undefined,
  neverDisposable: () => false,
  domainOverride: () => undefined,
});

/** Distinct domains seen on one piece of infrastructure, by listed status. */
export interface InfrastructureCounts {
  disposable: number;
  good: number;
  unknown: number;
}

export interface LearningThresholds {
  /** Distinct listed-disposable domains seen on it, at least. */
  minDisposableDomains: number;
  /** Their share of every domain seen on it, at least (0–1). */
  minDisposableShare: number;
}

/**
 * Chosen on the generated world of harness/disposable-world.ts (`npm run eval` prints the
 * sweep; README "Detection"): with 1 or 2 listed domains, stray listed domains on small
 * shared hosts teach those hosts and legitimate domains are flagged; 3 flags none and
 * still learns every service; the share of 25 % is far above a shared host's stray rate
 * (about 4 %) and below every service's listed share (lists catch about 43 %).
 */
export const LEARNING_THRESHOLDS: LearningThresholds = Object.freeze({
  minDisposableDomains: 3,
  minDisposableShare: 0.25,
});

/**
 * Whether infrastructure is disposable by its evidence: enough distinct listed-disposable
 * domains, a high enough share of them, and no known-good or provider domain at all.
 */
export function isLearnedDisposable(
  counts: InfrastructureCounts,
  thresholds: LearningThresholds = LEARNING_THRESHOLDS,
): boolean {
  const seen = counts.disposable + counts.good + counts.unknown;
  return (
    counts.good === 0 &&
    counts.disposable >= thresholds.minDisposableDomains &&
    counts.disposable >= thresholds.minDisposableShare * seen
  );
}

/** The kinds of override the operator can set, and which actions each takes. */
export type OverrideKind = "domain" | InfrastructureKind;
export type OverrideAction = DomainOverride | "never_disposable";

/**
 * An infrastructure override's value as the check sees it: a host name lower-cased
 * without its trailing dot, or an address (an `mx_ip` takes an IPv4 or IPv6 address
 * only: `999.1.1.1` is refused). The problem's words when it is none.
 */
export function infrastructureValue(
  kind: InfrastructureKind,
  raw: string,
): { ok: true; value: string } | { ok: false; problem: string } {
  const value = raw.trim().toLowerCase().replace(/\.$/, "");
  if (kind === "mx_ip" && isIP(value) === 0)
    return { ok: false, problem: `"${raw}" is not an IPv4 or IPv6 address` };
  return { ok: true, value };
}

/** Why an override cannot be set (a domain is allowed or denied; infrastructure only never disposable), or null. */
export function overrideProblem(kind: OverrideKind, action: OverrideAction): string | null {
  if (kind === "domain") {
    return action === "never_disposable" ? "a domain is allowed or denied, not never_disposable" : null;
  }
  return action === "never_disposable" ? null : `${kind} can only be marked never_disposable`;
}
