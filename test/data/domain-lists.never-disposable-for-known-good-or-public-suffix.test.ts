import { readFileSync } from "node:fs";
import { getDomain } from "tldts";
import { describe, expect, it } from "vitest";
import { readCuratedLists } from "../../src/data/curated.js";
import { DATA_DIR, loadDomainLists } from "../../src/data/read-domain-lists.js";
import { listed, listsFrom } from "./lists-from.js";

function baseOf(domain: string): string {
  return getDomain(domain, { allowPrivateDomains: false }) ?? domain;
}

describe("known-good domains and public suffixes are never disposable, even when listed", () => {
  // Lists whose disposable list names everything: only the protection stands in between.
  const everything = ["gmail.com", "outlook.com", "yahoo.com", "mit.edu", "ox.ac.uk", "github.io", "co.uk"];
  const lists = listsFrom({
    disposable: everything.map(listed),
    curated: {
      "known-good.txt": "gmail.com\noutlook.com\nyahoo.com\n",
      "known-good-suffixes.txt": "edu  education\nac.uk  academic\n",
    },
  });

  it.each([
    ["gmail.com", "gmail.com"],
    ["mail.gmail.com", "gmail.com"],
    ["outlook.com", "outlook.com"],
    ["yahoo.com", "yahoo.com"],
    ["mit.edu", "mit.edu"],
    ["csail.mit.edu", "mit.edu"],
    ["ox.ac.uk", "ox.ac.uk"],
    ["github.io", "github.io"],
    ["co.uk", "co.uk"],
  ])("disposable(%s) is undefined", (domain, base) => {
    expect(lists.disposable(domain, base)).toBeUndefined();
  });

  it.each([
    ["gmail.com", true],
    ["mail.gmail.com", true],
    ["mit.edu", true],
    ["ox.ac.uk", true],
    ["gmail.com.example.net", false],
    ["github.io", false],
  ])("isKnownGood(%s) → %s", (domain, expected) => {
    expect(lists.domainFacts(domain, baseOf(domain)).knownGood).toBe(expected);
  });

  describe("with the bundled lists", () => {
    const bundled = loadDomainLists();

    it.each([
      "gmail.com",
      "outlook.com",
      "yahoo.com",
      "zoho.com",
      "mit.edu",
      "ox.ac.uk",
      "nus.edu.sg",
      "u-tokyo.ac.jp",
      "unimelb.edu.au",
      "ethz.ch",
      "co.uk",
      "github.io",
      "ddns.net",
      "uw.edu.pl",
      // Reserved names (RFC 2606), which a source list carries: build rule 2 drops them.
      "example.com",
      "example.net",
      "mail.example.org",
    ])("%s is not disposable", (domain) => {
      expect(bundled.disposable(domain, baseOf(domain))).toBeUndefined();
    });

    // A suffix that admits only institutions protects what is under it (docs/data.md);
    // under edu.pl and mil.pl, open to anyone, only the named institutions are protected.
    it.each([
      ["edu.pl", false],
      ["mil.pl", false],
      ["gov.pl", true],
      ["edu", true],
      ["ac.uk", true],
    ])("known-good-suffixes.txt protects all under %s: %s", (suffix, held) => {
      expect(readCuratedLists(DATA_DIR).knownGoodSuffixes.includes(suffix)).toBe(held);
    });

    it.each(["uw.edu.pl", "uj.edu.pl", "pw.edu.pl", "mail.uw.edu.pl", "law.mil.pl"])(
      "%s, a named institution under an open suffix, is known-good and not disposable",
      (domain) => {
        expect(bundled.disposable(domain, baseOf(domain))).toBeUndefined();
        expect(bundled.domainFacts(domain, baseOf(domain)).knownGood).toBe(true);
      },
    );

    it.each(["gold.edu.pl", "fastmail.edu.pl", "usa.edu.pl", "tempmail.edu.pl"])(
      "%s, a throwaway service under an open academic suffix, is disposable again",
      (domain) => {
        expect(bundled.disposable(domain, baseOf(domain))).toBeDefined();
        expect(bundled.domainFacts(domain, baseOf(domain)).knownGood).toBe(false);
      },
    );

    it("still knows the big disposable services", () => {
      for (const domain of [
        "mailinator.com",
        "guerrillamail.com",
        "yopmail.com",
        "temp-mail.org",
        "10minutemail.com",
      ]) {
        expect(bundled.disposable(domain, domain)?.entry, domain).toBe(domain);
      }
    });

    it("flags nothing in the held-back sample test/fixtures/known-good.txt", () => {
      const sample = readFileSync(new URL("../fixtures/known-good.txt", import.meta.url), "utf8")
        .split("\n")
        .map((line) => line.replace(/#.*/, "").trim())
        .filter((line) => line !== "");
      expect(sample.length).toBeGreaterThanOrEqual(300);
      const flagged = sample.filter((domain) => {
        const base = baseOf(domain);
        return (
          bundled.disposable(domain, base) !== undefined ||
          bundled.parkingHost(domain) !== undefined ||
          bundled.disposableInfrastructure(domain) !== undefined
        );
      });
      expect(flagged).toEqual([]);
    });
  });
});
