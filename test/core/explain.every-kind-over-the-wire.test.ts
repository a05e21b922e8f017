/**
 * The evidence of every verdict, made by the whole engine from real DNS answers of the
 * loopback server (fixture engine.json): one domain per kind gives exactly the example
 * docs/api.md "Evidence (`explain=true`)" shows (EVIDENCE_EXAMPLES), and every domain of the fixture keeps the
 * three promises: a blocked answer has an item, every true flag has the item that set it,
 * and the items' risks add up to the record's.
 */

import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { checkDomain, type DomainCheck, forAddress } from "../../src/core/check.js";
import { EVIDENCE_EXAMPLES, type EvidenceKind } from "../../src/core/evidence.js";
import { KNOWN_GOOD_LISTS, MX_PROVIDER_LIST, SIGNAL_ITEMS } from "../../src/core/explain.js";
import { parseInput } from "../../src/core/input.js";
import { type LearnedInfrastructure, NOTHING_LEARNED } from "../../src/core/learned.js";
import { DOMAIN_SIGNALS } from "../../src/core/signals/index.js";
import { daysBefore, type EngineOverTheWire, NOW, startEngine } from "./engine-over-the-wire.js";
import { expectExplained } from "./explained.js";

/** The operator denied one domain of the fixture, with a note. */
const DENIED = "example-selfhosted.test";
const learned: LearnedInfrastructure = {
  ...NOTHING_LEARNED,
  domainOverride: (domain) => (domain === DENIED ? "deny" : undefined),
  overrideNote: (kind, value) =>
    kind === "domain" && value === DENIED ? { action: "deny", note: "chargebacks" } : undefined,
};

let engine: EngineOverTheWire;

beforeAll(async () => {
  engine = await startEngine({
    ages: {
      "fresh.test": daysBefore(NOW, 3),
      "month-old.test": daysBefore(NOW, 20),
      "yhoo.com": daysBefore(NOW, 2),
      "gmail.com": new Date("1995-08-13T04:00:00Z"),
    },
  });
  engine.deps.learned = learned;
});
afterAll(() => engine.close());

/** The check of an input as the service answers it (the address's signals applied). */
async function checked(raw: string): Promise<DomainCheck> {
  const parsed = parseInput(raw, TEST_NAMES_ON);
  if (!parsed.ok) throw new Error(`${raw}: ${parsed.problem.detail}`);
  return forAddress(await checkDomain(parsed.input.domain, engine.deps), parsed.input, engine.deps.lists);
}

describe("the example of each kind", () => {
  it.each(Object.entries(EVIDENCE_EXAMPLES))("%s is what the engine says", async (kind, { input, item }) => {
    const check = await checked(input);
    const items = check.explain();
    expectExplained(check.record, items, input);
    expect(items.filter((candidate) => candidate.kind === (kind as EvidenceKind))).toContainEqual(item);
  });
});

/** Every name of the fixture that is a domain one might check, and addresses at some. */
function fixtureInputs(): string[] {
  const names = Object.keys(
    (
      JSON.parse(readFileSync(new URL("../fixtures/zones/engine.json", import.meta.url), "utf8")) as {
        names: Record<string, unknown>;
      }
    ).names,
  );
  return [
    // Mail hosts named outside the public DNS (internal-mx.test's) are no domain one might check.
    ...names.filter((name) => parseInput(name, TEST_NAMES_ON).ok),
    "does-not-exist.test",
    "hotmial.com",
    "nosuch.gmail.com",
    "yahoo.com",
    "outlook.com",
    "admin@fallback.test",
    "info@yhoo.com",
    "postmaster@mailinator.com",
    "admin@outlookk.com",
  ];
}

describe("every domain of the fixture", () => {
  it("keeps the promises: blocked ⇒ an item, every true flag its item, risks add up", async () => {
    const inputs = fixtureInputs();
    expect(inputs.length).toBeGreaterThan(80);
    const kinds = new Set<string>();
    for (const input of inputs) {
      const check = await checked(input);
      const items = check.explain();
      expectExplained(check.record, items, input);
      for (const item of items) kinds.add(item.kind);
      // Made once, then kept.
      expect(check.explain()).toBe(items);
    }
    expect([...kinds].sort()).toEqual(Object.keys(EVIDENCE_EXAMPLES).sort());
  });

  it("names lists that exist", () => {
    for (const list of [MX_PROVIDER_LIST, ...KNOWN_GOOD_LISTS]) {
      expect(existsSync(new URL(`../../${list}`, import.meta.url)), list).toBe(true);
    }
  });

  it("has an item for every soft signal", () => {
    expect(DOMAIN_SIGNALS.map((signal) => signal.key).filter((key) => !(key in SIGNAL_ITEMS))).toEqual([]);
  });
});
