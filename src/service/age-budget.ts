/**
 * Domain age never slows a check. DNS answers first; only a registered domain's age is
 * asked of the registries (RDAP, then WHOIS), and the check waits for it at most
 * `waitMs` (200 ms by default). An age that comes later (within AGE_TIMEOUT_MS) gives a
 * second, complete check that the record cache saves when it arrives: the verdict is
 * decided again with the age, so a days-old domain still gets its risk.
 */
import type { DomainAgeLookup } from "../core/age.js";
import {
  type CheckDeps,
  checkSignals,
  type DomainCheck,
  isRegistered,
  lookupSignals,
  withCreatedAt,
} from "../core/check.js";

/** How long a check waits for the registries before it answers without the domain's age. */
export const AGE_WAIT_MS = 200;

export interface LookupResult {
  check: DomainCheck;
  /** The same check with the domain's age, when the age came after the answer; null when none came. */
  later?: Promise<DomainCheck | null>;
}

const LATE = Symbol("late");

export async function checkWithinAgeBudget(
  domain: string,
  deps: Omit<CheckDeps, "age">,
  age: DomainAgeLookup | null,
  waitMs = AGE_WAIT_MS,
): Promise<LookupResult> {
  const signals = await lookupSignals(domain, deps);
  if (age === null || !isRegistered(signals)) return { check: checkSignals(signals, deps.clock()) };
  const asked = age.lookup(signals.baseDomain).catch(() => null);
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    asked,
    new Promise<typeof LATE>((resolve) => {
      timer = setTimeout(() => resolve(LATE), waitMs);
    }),
  ]);
  clearTimeout(timer);
  if (answered !== LATE) {
    return { check: checkSignals(withCreatedAt(signals, answered?.createdAt ?? null), deps.clock()) };
  }
  return {
    check: checkSignals(signals, deps.clock()),
    later: asked.then((found) =>
      found ? checkSignals(withCreatedAt(signals, found.createdAt), deps.clock()) : null,
    ),
  };
}
