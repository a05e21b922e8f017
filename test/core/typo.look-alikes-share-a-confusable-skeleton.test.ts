/**
 * Look-alike names (docs/security.md, "Look-alike domains"): a domain with the confusable
 * skeleton (Unicode TS #39) of a popular or known-good one gets it in `possible_typo`, with the typo
 * signal's weight and evidence that names the look-alike; genuine names and unrelated
 * IDNs get nothing. Over the wire (engine zones) and on the index alone.
 */
import { domainToASCII } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDomain } from "../../src/core/check.js";
import { skeleton } from "../../src/core/look-alike.js";
import { TypoIndex } from "../../src/core/typo.js";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";
import { type EngineOverTheWire, startEngine } from "./engine-over-the-wire.js";

describe("the skeleton", () => {
  it.each([
    ["gmаil.com", "grnail.corn"],
    ["gmail.com", "grnail.corn"],
    ["rnicrosoft.com", "rnicrosoft.corn"],
    ["g00gle.com", "google.corn"],
    ["οutlооk.com", "outlook.corn"],
    ["münchen.de", "rnünchen.de"],
  ])("of %s is %s", (name, expected) => {
    expect(skeleton(domainToASCII(name))).toBe(expected);
  });
});

describe("look-alike suggestions", () => {
  const index = new TypoIndex(["gmail.com", "outlook.com", "yahoo.com", "mail.ru"]);

  it.each([
    ["gmаil.com", ["gmail.com"]],
    ["оutlook.com", ["outlook.com"]],
    ["οutlοοk.com", ["outlook.com"]],
    ["yаhоо.com", ["yahoo.com"]],
    ["gmai1.com", ["gmail.com"]],
  ])("%s → %j", (name, expected) => {
    expect(index.suggest(domainToASCII(name))).toEqual(expected);
    expect(index.lookAlikeOf(domainToASCII(name))).toBe(expected[0]);
  });

  it.each(["gmail.com", "münchen.de", "пример.рф", "bücher.de", "example.com"])("%s gets none", (name) => {
    expect(index.suggest(domainToASCII(name))).toEqual([]);
    expect(index.lookAlikeOf(domainToASCII(name))).toBeUndefined();
  });

  it("takes an i shown as a capital I for an l, never an l for an i", () => {
    const withPaypal = new TypoIndex(["gmail.com"], ["gmail.com", "paypal.com", "mail.com"]);
    expect(domainToASCII("paypaI.com")).toBe("paypai.com");
    expect(withPaypal.lookAlikeOf("paypai.com")).toBe("paypal.com");
    expect(withPaypal.lookAlikeOf("rnaii.com")).toBe("mail.com");
    expect(withPaypal.lookAlikeOf("gmaii.com")).toBe("gmail.com");
    expect(withPaypal.lookAlikeOf("mall.com")).toBeUndefined();
    expect(withPaypal.lookAlikeOf("paypal.com")).toBeUndefined();
    expect(withPaypal.lookAlikeOf("paypaii.com")).toBeUndefined();
    expect(index.suggest("paypai.com")).toEqual([]);
  });
});

describe("look-alikes of the known-good domains, as the service's index holds them", () => {
  const lists = loadDomainLists();
  const index = new TypoIndex(lists.popular, lists.lookAlikeTargets);

  it.each([
    ["аpple.com", "apple.com"],
    ["g00gle.com", "google.com"],
    ["rnicrosoft.com", "microsoft.com"],
    ["amaz0n.com", "amazon.com"],
    ["paypaI.com", "paypal.com"],
  ])("%s is drawn like %s", (name, target) => {
    expect(index.suggest(domainToASCII(name))[0]).toBe(target);
    expect(index.lookAlikeOf(domainToASCII(name))).toBe(target);
  });

  it("holds no two targets drawn alike, so no target is a look-alike of another", () => {
    for (const target of lists.lookAlikeTargets) expect(index.lookAlikeOf(target)).toBeUndefined();
  });

  it("suggests a known-good domain only for a name drawn like it, never for a slip away from it", () => {
    expect(index.suggest("appel.com")).toEqual([]);
    expect(index.suggest("gmial.com")).toEqual(["gmail.com"]);
  });
});

describe("over the wire", () => {
  let engine: EngineOverTheWire;
  beforeAll(async () => {
    engine = await startEngine();
  });
  afterAll(() => engine.close());

  it("gmаil.com (Cyrillic а) suggests gmail.com, is risky, and its evidence names the look-alike", async () => {
    const record = await engine.check("jane@gmаil.com");
    expect(record).toMatchObject({ domain: "xn--gmil-63d.com", possible_typo: ["gmail.com"], valid: true });
    expect(record.risk).toBeGreaterThanOrEqual(45);
    const evidence = (await checkDomain(domainToASCII("gmаil.com"), engine.deps)).explain();
    expect(evidence).toContainEqual(
      expect.objectContaining({
        kind: "typo",
        suggestions: ["gmail.com"],
        detail:
          "gmаil.com (xn--gmil-63d.com) is written with characters drawn like those of gmail.com: a look-alike name.",
      }),
    );
  });

  it.each(["gmail.com", "münchen.de"])("%s gets no suggestion", async (name) => {
    expect((await engine.check(name)).possible_typo).toEqual([]);
  });
});
