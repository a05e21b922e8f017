/**
 * What the engine and wire benchmarks share: the engine's dependencies with a fixed
 * clock (so a record from the wire compares byte for byte with the in-memory one; one
 * Date, as a real clock costs no date parsing), and a pass over inputs in batches of
 * IN_FLIGHT awaited in turn. Domain age (RDAP/WHOIS) is left out: it is a network
 * look-up of its own, run in parallel with DNS and cached per base domain.
 */
import { TEST_NAMES_ON } from "../harness/config.js";
import "./test-names.js";
import { checkInput } from "../harness/check-input.js";
import type { CheckDeps } from "../src/core/check.js";
import type { DnsResolver } from "../src/core/dns.js";
import { TypoIndex } from "../src/core/typo.js";
import { loadDomainLists } from "../src/data/read-domain-lists.js";

/** Checks in flight at once. */
export const IN_FLIGHT = 64;

const NOW = new Date("2025-01-01T00:00:00Z");
const CLOCK = () => NOW;

export function engineDeps(resolver: DnsResolver): CheckDeps {
  const lists = loadDomainLists();
  return { lists, typos: new TypoIndex(lists.popular), resolver, clock: CLOCK, ...TEST_NAMES_ON };
}

/** Checks every input, IN_FLIGHT at a time, each batch awaited in turn; keeps each record's JSON in `keep`. */
export async function checkInBatches(
  inputs: readonly string[],
  deps: CheckDeps,
  keep?: Map<string, string>,
): Promise<void> {
  for (let start = 0; start < inputs.length; start += IN_FLIGHT) {
    const batch = inputs.slice(start, start + IN_FLIGHT);
    const records = await Promise.all(batch.map((input) => checkInput(input, deps)));
    if (keep) {
      for (const [i, input] of batch.entries()) keep.set(input, JSON.stringify(records[i]));
    }
  }
}
