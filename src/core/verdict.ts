/**
 * The verdict: one primary row of docs/api.md "Verdicts" (first match wins) and the risk score
 * from the soft signals' weights (src/core/signals/). Pure functions; docs/verdicts.md
 * is the table in prose and must be kept in step with this file.
 *
 * A verdict is decided in one place, `decide()`, from a basis: the fixed row the domain
 * matched (a fixed status, `reserved` to `dns_failure`) or its weighed soft signals
 * (`risky` or `ok`), plus the signals of the
 * address checked, if any, weighed on top.
 */
import { ageInDays } from "./age.js";
import { CATEGORY, PRECEDENCE } from "./categories.js";
import type { Signals } from "./gathered-signals.js";
import { overrideOf } from "./learned.js";
import { DOMAIN_SIGNALS } from "./signals/index.js";
import {
  type DomainSignal,
  heavier,
  NOTHING_WEIGHED,
  type SoftSignal,
  type Weighing,
} from "./signals/soft-signal.js";

/** One status per verdict of docs/api.md "Verdicts"; the soft signals' two are `risky` and `ok`. */
export type VerdictStatus =
  | "reserved"
  | "nxdomain"
  | "null_mx"
  | "no_mail"
  | "mx_missing"
  | "mx_private"
  | "denied"
  | "disposable"
  | "heuristics"
  | "parked"
  | "dns_timeout"
  | "dns_failure"
  | "risky"
  | "ok";

/** The fixed statuses: every status but `risky` and `ok`. */
export type FixedStatus = Exclude<VerdictStatus, "risky" | "ok">;

/** Whether the verdict was made during a temporary DNS failure (timeout, SERVFAIL, REFUSED). */
export function isTemporaryFailure(status: VerdictStatus): boolean {
  return status === "dns_timeout" || status === "dns_failure";
}

export interface Verdict {
  status: VerdictStatus;
  valid: boolean;
  block: boolean;
  risk: number;
  text: string;
  reason: string;
}

const NO_EMAIL = "Domain does not accept email";
const DISPOSABLE = "Disposable / temporary domain";
const UNCHECKED = "Could not be checked right now";
/** The reason of a verdict the operator's override of the domain decided (deny: blocked; allow: `ok`). */
const OPERATOR_OVERRIDE = "Operator override";
/** The reason of a verdict the asking account's own list decided (block: `denied`; allow: `ok`), and a block's text. */
const ACCOUNT_LIST = "Account list";
const ACCOUNT_BLOCKED = "Blocked by the account's list";

/**
 * The fixed statuses: validity, text and reason (`heuristics`' reason is followed by the number of
 * heuristics, `Heuristics x2`), and whether the row blocks whatever the risk.
 */
export const FIXED_ROWS: Readonly<
  Record<FixedStatus, { valid: boolean; blocks: boolean; text: string; reason: string }>
> = {
  reserved: { valid: false, blocks: true, text: "Reserved example domain", reason: "Reserved name" },
  nxdomain: { valid: false, blocks: true, text: "Domain does not exist", reason: "NXDOMAIN" },
  null_mx: { valid: false, blocks: true, text: NO_EMAIL, reason: "Null MX" },
  no_mail: { valid: false, blocks: true, text: NO_EMAIL, reason: "No MX or A record" },
  mx_missing: { valid: false, blocks: true, text: NO_EMAIL, reason: "MX host does not exist" },
  mx_private: {
    valid: false,
    blocks: true,
    text: "Domain does not accept email from the internet",
    reason: "MX on a private address",
  },
  denied: { valid: true, blocks: true, text: "Blocked by the operator", reason: OPERATOR_OVERRIDE },
  disposable: { valid: true, blocks: true, text: DISPOSABLE, reason: "Disposable" },
  heuristics: { valid: true, blocks: true, text: DISPOSABLE, reason: "Heuristics x" },
  parked: { valid: true, blocks: true, text: "Parked domain", reason: "Parked" },
  dns_timeout: { valid: true, blocks: false, text: UNCHECKED, reason: "DNS timeout" },
  dns_failure: { valid: true, blocks: false, text: UNCHECKED, reason: "DNS failure" },
};

/** Fixed risks of the rows of docs/api.md "Verdicts". */
export const FIXED_RISK = {
  invalid: 100,
  /** Denied by the operator (an override kept in the database). */
  denied: 100,
  disposableListed: 95,
  /** Heuristics: 90 for one independent signal, +3 for each further one, at most 99. */
  disposableHeuristics: 90,
  /** What each further heuristic adds. */
  disposableHeuristicsStep: 3,
  /** The most heuristics can reach. */
  disposableHeuristicsMax: 99,
  parked: 85,
  /** Temporary DNS failure: uncertainty, then the other signals, kept within 50–79. */
  dnsUnknown: 55,
  /** The least a temporary DNS failure's risk is. */
  dnsUnknownMin: 50,
  /** The most a temporary DNS failure's risk is, below the block threshold. */
  dnsUnknownMax: 79,
} as const;

export const BLOCK_THRESHOLD = 80;

/** Soft signals adding up to this or more make a verdict `risky`; below it a record "Looks okay" (`ok`). */
export const RISKY_THRESHOLD = 30;

/** The text of an `ok` verdict. */
export const LOOKS_OKAY = "Looks okay";

/** A row of docs/api.md "Verdicts" in words, for the docs tables (`npm run docs:tables`); FIXED_ROWS gives the rest. */
export interface VerdictRow {
  /** Its number in the docs ("2a", "3a": rows added between others). */
  row: string;
  /** The statuses it gives: one, or two for a temporary DNS failure. */
  statuses: readonly VerdictStatus[];
  /** When it matches (Markdown). */
  when: string;
  /** Its risk (Markdown). */
  risk: string;
}

/** Every row in the order they are tried: the first that matches gives the verdict. */
export const VERDICT_ROWS: readonly VerdictRow[] = [
  {
    row: "0",
    statuses: ["reserved"],
    when: "reserved name that never receives mail (RFC 2606, RFC 6761): `example.com`, `example.net`, `example.org` and names under them; decided from the name, whatever DNS says (`*.invalid`, `*.localhost` and other special-use names are refused as input before: [security.md](security.md#public-names-only))",
    risk: `${FIXED_RISK.invalid}`,
  },
  {
    row: "1",
    statuses: ["nxdomain"],
    when: "domain does not exist (NXDOMAIN)",
    risk: `${FIXED_RISK.invalid}`,
  },
  { row: "2", statuses: ["null_mx"], when: "null MX (RFC 7505)", risk: `${FIXED_RISK.invalid}` },
  {
    row: "2a",
    statuses: ["mx_missing"],
    when: "MX records name hosts and DNS says none of them exists (NXDOMAIN for each host's A and AAAA): mail bounces",
    risk: `${FIXED_RISK.invalid}`,
  },
  {
    row: "2b",
    statuses: ["mx_private"],
    when: "the mail hosts (the MX hosts, or the domain itself without MX) have no public address: their addresses are loopback, private (RFC 1918, ULA), link-local, CGNAT, multicast or reserved, or their names are outside the public DNS (`.internal`, `.local`, an unknown TLD: never looked up) ([security.md](security.md#public-names-only)); the addresses are left out of the record",
    risk: `${FIXED_RISK.invalid}`,
  },
  { row: "3", statuses: ["no_mail"], when: "neither MX nor A/AAAA", risk: `${FIXED_RISK.invalid}` },
  {
    row: "3a",
    statuses: ["denied"],
    when: "denied by the operator ([overrides](api.md#10-administration): `mailrisk overrides add deny`, `POST /admin/overrides`), or, for its own keys only, blocked by the account's own list where the operator has no override of the domain ([accounts.md](accounts.md#the-accounts-list): text `Blocked by the account's list`, reason `Account list`)",
    risk: `${FIXED_RISK.denied}`,
  },
  {
    row: "4",
    statuses: ["disposable"],
    when: "on a disposable list (the domain or a parent up to the base domain)",
    risk: `${FIXED_RISK.disposableListed}`,
  },
  {
    row: "5",
    statuses: ["heuristics"],
    when: "not listed, but N independent signals say disposable: MX or NS on curated disposable infrastructure, MX host or address learnt disposable from traffic, a learnt NS beside another signal ([learned infrastructure](verdicts.md#learned-infrastructure-row-5))",
    risk: `${FIXED_RISK.disposableHeuristics} + ${FIXED_RISK.disposableHeuristicsStep}·(N−1), ≤ ${FIXED_RISK.disposableHeuristicsMax}`,
  },
  {
    row: "6",
    statuses: ["parked"],
    when: "parked (NS, MX or A on a parking service)",
    risk: `${FIXED_RISK.parked}`,
  },
  {
    row: "7",
    statuses: ["dns_timeout", "dns_failure"],
    when: "temporary DNS failure (timeout; SERVFAIL, REFUSED)",
    risk: `${FIXED_RISK.dnsUnknown} + soft signals, kept in ${FIXED_RISK.dnsUnknownMin}–${FIXED_RISK.dnsUnknownMax}`,
  },
  {
    row: "8",
    statuses: ["risky"],
    when: `soft signals add up to ≥ ${RISKY_THRESHOLD}`,
    risk: "sum of weights",
  },
  {
    row: "9",
    statuses: ["ok"],
    when: `soft signals < ${RISKY_THRESHOLD}`,
    risk: `sum of weights (0–${RISKY_THRESHOLD - 1})`,
  },
];

export type RiskLevel = "LOW" | "MEDIUM" | "HIGH";

/** docs/api.md "The record": LOW 0–29, MEDIUM 30–69, HIGH 70–100. */
export function riskLevel(risk: number): RiskLevel {
  return risk >= 70 ? "HIGH" : risk >= 30 ? "MEDIUM" : "LOW";
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** The fixed row a domain matched, with its risk. */
export interface FixedRow {
  status: FixedStatus;
  risk: number;
  reason: string;
  /** The text when it is not the row's own (a block by the account's list). */
  text?: string;
}

/** What a verdict is decided from (see `verdictBasis()` and, per address, src/core/check.ts). */
export interface VerdictBasis {
  /** The first fixed status that matched; null: the soft signals decide (`risky` or `ok`). */
  row: FixedRow | null;
  /** The domain's soft signals, weighed (they count for a DNS failure, `risky` and `ok`); none for a known-good domain. */
  soft: Weighing;
  /** An `ok` verdict's reason: the domain's main category. */
  mainCategory: string;
}

/** A domain's basis with the signals weighed into `soft`, in their tie-breaking order (what its evidence explains). */
export interface DomainBasis extends VerdictBasis {
  weighed: readonly DomainSignal[];
}

/** No signal weighed. */
const NONE_SEEN: readonly DomainSignal[] = Object.freeze([]);

/** The domain's soft signals, weighed, and which were seen. */
function weighDomain(signals: Signals, now: Date): { soft: Weighing; weighed: readonly DomainSignal[] } {
  if (signals.knownGood || overrideOf(signals) === "allow")
    return { soft: NOTHING_WEIGHED, weighed: NONE_SEEN };
  const ageDays = signals.createdAt ? ageInDays(signals.createdAt, now) : null;
  let risk = 0;
  let heaviest: SoftSignal | null = null;
  const weighed: DomainSignal[] = [];
  for (const signal of DOMAIN_SIGNALS) {
    if (!signal.seen(signals, ageDays)) continue;
    risk += signal.weight;
    heaviest = heavier(heaviest, signal);
    weighed.push(signal);
  }
  return heaviest === null ? { soft: NOTHING_WEIGHED, weighed } : { soft: { risk, heaviest }, weighed };
}

function fixedRow(signals: Signals, soft: Weighing): FixedRow | null {
  if (signals.reserved)
    return { status: "reserved", risk: FIXED_RISK.invalid, reason: FIXED_ROWS.reserved.reason };
  const { status } = signals.routing;
  if (status === "nxdomain" || status === "null_mx" || status === "no_mail" || status === "mx_missing") {
    return { status, risk: FIXED_RISK.invalid, reason: FIXED_ROWS[status].reason };
  }
  if (signals.mxPrivate) {
    return { status: "mx_private", risk: FIXED_RISK.invalid, reason: FIXED_ROWS.mx_private.reason };
  }
  if (signals.operator === "deny") {
    return { status: "denied", risk: FIXED_RISK.denied, reason: FIXED_ROWS.denied.reason };
  }
  if (overrideOf(signals) === "deny") {
    return { status: "denied", risk: FIXED_RISK.denied, reason: ACCOUNT_LIST, text: ACCOUNT_BLOCKED };
  }
  if (signals.disposable) {
    return { status: "disposable", risk: FIXED_RISK.disposableListed, reason: FIXED_ROWS.disposable.reason };
  }
  const hints = signals.disposableHints.length;
  if (hints > 0) {
    const risk = Math.min(
      FIXED_RISK.disposableHeuristicsMax,
      FIXED_RISK.disposableHeuristics + FIXED_RISK.disposableHeuristicsStep * (hints - 1),
    );
    return { status: "heuristics", risk, reason: `${FIXED_ROWS.heuristics.reason}${hints}` };
  }
  if (signals.parking) return { status: "parked", risk: FIXED_RISK.parked, reason: FIXED_ROWS.parked.reason };
  if (status === "dns_timeout" || status === "dns_failure") {
    return {
      status,
      risk: clamp(FIXED_RISK.dnsUnknown + soft.risk, FIXED_RISK.dnsUnknownMin, FIXED_RISK.dnsUnknownMax),
      reason: FIXED_ROWS[status].reason,
    };
  }
  return null;
}

/** The reason of a clean record: the domain's main category. */
export function mainCategory(signals: Signals): string {
  if (signals.operator === "allow") return OPERATOR_OVERRIDE;
  if (overrideOf(signals) === "allow") return ACCOUNT_LIST;
  for (const category of PRECEDENCE) {
    if (category.listingNamesMainCategory && signals.categories[category.key]) return category.mainCategory;
  }
  const { mxProvider } = signals;
  if (mxProvider) {
    return mxProvider.category ? CATEGORY[mxProvider.category].mainCategory : `Hosted by ${mxProvider.name}`;
  }
  if (signals.selfHosted) return "Self-hosted";
  if (signals.knownGood) return "Known domain";
  return "Valid domain";
}

/** What the domain's verdict is decided from. */
export function verdictBasis(signals: Signals, now: Date): DomainBasis {
  const { soft, weighed } = weighDomain(signals, now);
  const row = fixedRow(signals, soft);
  return { row, soft, mainCategory: row === null ? mainCategory(signals) : "", weighed };
}

/**
 * The verdict of a basis, with the address's signals (per-address, e.g. a role account)
 * weighed on top: they add to the risk of a valid record, also of a fixed row's, and
 * count towards `risky` like the domain's own.
 */
export function decide(basis: VerdictBasis, address: Weighing = NOTHING_WEIGHED): Verdict {
  const { row } = basis;
  if (row !== null) {
    const { valid, blocks } = FIXED_ROWS[row.status];
    const text = row.text ?? FIXED_ROWS[row.status].text;
    const risk = valid ? Math.min(100, row.risk + address.risk) : row.risk;
    return {
      status: row.status,
      valid,
      block: blocks || risk >= BLOCK_THRESHOLD,
      risk,
      text,
      reason: row.reason,
    };
  }
  const risk = clamp(basis.soft.risk + address.risk, 0, 100);
  const named = heavier(basis.soft.heaviest, address.heaviest)?.verdict;
  if (!named || risk < RISKY_THRESHOLD) {
    return { status: "ok", valid: true, block: false, risk, text: LOOKS_OKAY, reason: basis.mainCategory };
  }
  return {
    status: "risky",
    valid: true,
    block: risk >= BLOCK_THRESHOLD,
    risk,
    text: named.text,
    reason: named.reason,
  };
}
