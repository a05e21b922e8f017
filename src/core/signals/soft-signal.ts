/**
 * A soft signal (docs/verdicts.md, soft signals): a weight added to the risk, and the text
 * and reason of a `risky` verdict it is the heaviest signal of. One file per signal in this
 * directory; index.ts lists them in the order that breaks ties between equal weights.
 */

import type { Signals } from "../gathered-signals.js";
import type { ParsedInput } from "../input.js";
import type { DomainLists } from "../list-interfaces.js";

export interface SoftSignal {
  key: string;
  weight: number;
  /** The verdict it names as the heaviest signal; null: it never names one (its weight only adds). */
  verdict: { text: string; reason: string } | null;
}

/** A signal of the checked domain: part of the domain's record, cached per domain. */
export interface DomainSignal extends SoftSignal {
  /** Whether the domain shows it; `ageDays` is the domain's age at the check, null when unknown. */
  seen(signals: Signals, ageDays: number | null): boolean;
}

/** A signal of one address at the domain: applied per check on top of the domain's record. */
export interface AddressSignal extends SoftSignal {
  /** The record flag that says the address shows it. */
  flag: "is_role_based_email";
  seen(input: ParsedInput, lists: DomainLists): boolean;
}

/** Soft signals weighed: their summed weight and the heaviest that names a verdict (the first of equals). */
export interface Weighing {
  risk: number;
  heaviest: SoftSignal | null;
}

export const NOTHING_WEIGHED: Weighing = Object.freeze({ risk: 0, heaviest: null });

/** The heavier of two signals; the first when they weigh the same. */
export function heavier(a: SoftSignal | null, b: SoftSignal | null): SoftSignal | null {
  if (b === null || b.verdict === null) return a;
  return a === null || b.weight > a.weight ? b : a;
}
