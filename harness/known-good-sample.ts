/**
 * The held-back sample of legitimate domains, test/fixtures/known-good.txt: big mailbox
 * providers, universities, governments, companies and public suffixes. A comment line
 * right after a blank line names the section of the domains below it.
 */
import { readFileSync } from "node:fs";
import type { CheckRecord } from "../src/core/record.js";

export interface KnownGoodDomain {
  domain: string;
  /** The file's section heading, e.g. `Universities — United States`. */
  section: string;
}

export function readKnownGoodSample(): KnownGoodDomain[] {
  const text = readFileSync(new URL("../test/fixtures/known-good.txt", import.meta.url), "utf8");
  const sample: KnownGoodDomain[] = [];
  let section = "";
  let previousBlank = false;
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("#") && previousBlank) section = trimmed.slice(1).trim();
    const domain = trimmed.replace(/#.*/, "").trim();
    if (domain !== "") sample.push({ domain, section });
    previousBlank = trimmed === "";
  }
  return sample;
}

/**
 * The zero false positive promise for a known-good domain with working mail DNS: its
 * record is valid, not blocked and not disposable. The test keeps it; the evaluation
 * reports it.
 */
export function keepsKnownGoodPromise(record: CheckRecord): boolean {
  return record.valid && !record.block && !record.is_disposable;
}
