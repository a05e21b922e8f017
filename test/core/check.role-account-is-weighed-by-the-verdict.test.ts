/**
 * The per-address step: a role account's weight is weighed on top of the domain's
 * verdict by decide(), so text, reason, risk, block and status agree (docs/api.md §4.1,
 * docs/verdicts.md: "Looks okay" only below 30). The domain's record stays the domain's.
 */
import { describe, expect, it } from "vitest";
import { NO_CATEGORIES } from "../../src/core/categories.js";
import { checkSignals, type DomainCheck, forAddress, storedCheck, verdictOf } from "../../src/core/check.js";
import type { ParsedInput } from "../../src/core/input.js";
import type { Signals } from "../../src/core/signals.js";
import { listsFrom } from "../data/lists-from.js";
import { routed, sampleSignals } from "./sample-signals.js";

const NOW = new Date("2026-11-22T12:00:00Z");
const DAY = 86_400_000;
const lists = listsFrom({ roles: ["admin"] });

function domain(overrides: Partial<Signals>): DomainCheck {
  return checkSignals(sampleSignals(overrides), NOW);
}

const address = (localPart: string): ParsedInput => ({ kind: "email", domain: "example.com", localPart });
const free = {
  categories: { ...NO_CATEGORIES, free: { entry: "example.com", name: "Example", sources: [] } },
};
const fallback: Partial<Signals> = { routing: { ...routed, status: "fallback" } };
const typo: Partial<Signals> = { typos: ["gmail.com"], selfHosted: false };

type Seen = [status: string, risk: number, block: boolean, text: string, reason: string];

describe("admin@ at a domain: domain record, then the role account, then decide()", () => {
  it.each<[string, Partial<Signals>, Seen, Seen]>([
    [
      "fallback MX (25) crosses into row 8, named by the domain's heaviest signal",
      fallback,
      ["ok", 25, false, "Looks okay", "Self-hosted"],
      ["risky", 35, false, "No MX record, mail goes to the domain itself", "Fallback MX"],
    ],
    [
      "20 days old (25) crosses into row 8",
      { createdAt: new Date(NOW.getTime() - 20 * DAY) },
      ["ok", 25, false, "Looks okay", "Self-hosted"],
      ["risky", 35, false, "Newly registered domain", "Domain age < 30 days"],
    ],
    [
      "unknown domain (10) stays clean",
      { selfHosted: false },
      ["ok", 10, false, "Looks okay", "Valid domain"],
      ["ok", 20, false, "Looks okay", "Valid domain"],
    ],
    [
      "free provider (0) stays clean",
      free,
      ["ok", 0, false, "Looks okay", "Public free provider"],
      ["ok", 10, false, "Looks okay", "Public free provider"],
    ],
    [
      "typo (55) keeps its text",
      typo,
      ["risky", 55, false, "Possible typo of a popular domain", "Possible typo"],
      ["risky", 65, false, "Possible typo of a popular domain", "Possible typo"],
    ],
    [
      "DNS timeout at 79 goes over the block threshold",
      { ...typo, routing: { ...routed, status: "dns_timeout", hosts: [] } },
      ["dns_timeout", 79, false, "Could not be checked right now", "DNS timeout"],
      ["dns_timeout", 89, true, "Could not be checked right now", "DNS timeout"],
    ],
    [
      "listed disposable caps at 100",
      { disposable: { entry: "example.com", name: null, sources: ["mailchecker"] } },
      ["disposable", 95, true, "Disposable / temporary domain", "Disposable"],
      ["disposable", 100, true, "Disposable / temporary domain", "Disposable"],
    ],
    [
      "NXDOMAIN is not raised",
      { routing: { ...routed, status: "nxdomain", hosts: [] } },
      ["nxdomain", 100, true, "Domain does not exist", "NXDOMAIN"],
      ["nxdomain", 100, true, "Domain does not exist", "NXDOMAIN"],
    ],
  ])("%s", (_what, signals, before, after) => {
    const check = domain(signals);
    const seen = (c: DomainCheck): Seen => [
      c.status,
      c.record.risk,
      c.record.block,
      c.record.text,
      c.record.reason,
    ];
    expect(seen(check)).toEqual(before);
    const admin = forAddress(check, address("admin"), lists);
    expect(seen(admin)).toEqual(after);
    expect(admin.record.is_role_based_email).toBe(true);
    // The same from the record as the cache stores it.
    expect(seen(forAddress(storedCheck(check.record, verdictOf(check)), address("admin"), lists))).toEqual(
      after,
    );
    // The domain's record is untouched; a person's address sees it as is.
    expect(check.record.is_role_based_email).toBe(false);
    expect(forAddress(check, address("jane.doe"), lists)).toBe(check);
  });
});
