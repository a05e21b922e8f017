import { describe, expect, it } from "vitest";
import { boundedOsaDistance, TypoIndex } from "../../src/core/typo.js";

describe("bounded optimal-string-alignment distance", () => {
  it.each([
    ["gmail.com", "gmail.com", 0],
    ["gmial.com", "gmail.com", 1],
    ["gmai.com", "gmail.com", 1],
    ["gmaill.com", "gmail.com", 1],
    ["gnail.com", "gmail.com", 1],
    ["hotmial.co", "hotmail.com", 2],
    ["yahoo.com", "gmail.com", 3],
  ])("%s ~ %s = %i (bound 2 → capped at 3)", (a, b, expected) => {
    expect(boundedOsaDistance(a, b, 2)).toBe(Math.min(expected, 3));
  });
});

describe("typo suggestions", () => {
  const index = new TypoIndex(["gmail.com", "hotmail.com", "yahoo.com", "outlook.com", "gmx.de", "gmx.net"]);

  it.each([
    ["gmial.com", ["gmail.com"]],
    ["gmail.con", ["gmail.com"]],
    ["hotmial.com", ["hotmail.com"]],
    ["hotmail.co", ["hotmail.com"]],
    ["yahooo.com", ["yahoo.com"]],
    ["gmx.ne", ["gmx.de", "gmx.net"]],
  ])("%s → %j", (domain, expected) => {
    expect(index.suggest(domain)).toEqual(expected);
  });

  it.each(["gmail.com", "example.com", "mailinator.com", "g.co"])("%s gets no suggestion", (domain) => {
    expect(index.suggest(domain)).toEqual([]);
  });

  // A domain a disposable list names is a service of its own two slips away from a
  // popular name, and a typo domain one slip away.
  it.each([
    ["gmial.com", true, ["gmail.com"]],
    ["hotmial.com", true, ["hotmail.com"]],
    ["yopmail.com", true, []],
    ["yopmail.com", false, ["hotmail.com"]],
    ["nomail.com", true, []],
    ["nomail.com", false, ["gmail.com", "hotmail.com"]],
    ["hotmial.co", true, []],
    ["hotmial.co", false, ["hotmail.com"]],
  ] as const)("%s (listed: %s) → %j", (domain, listed, expected) => {
    expect(index.suggest(domain, listed)).toEqual(expected);
  });
});

describe("typo suggestions rule out candidates by their characters without losing one", () => {
  const popular = [
    "gmail.com",
    "hotmail.com",
    "yahoo.com",
    "outlook.com",
    "gmx.de",
    "web.de",
    "t-online.de",
    "mail.ru",
  ];
  const index = new TypoIndex(popular);
  /** Every popular domain within the bound, by the distance alone: what suggest() must find. */
  const byDistanceAlone = (domain: string) => {
    const bound = domain.length >= 10 ? 2 : 1;
    return popular
      .map((candidate) => ({ candidate, distance: boundedOsaDistance(domain, candidate, bound) }))
      .filter(({ distance }) => distance <= bound)
      .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
      .map(({ candidate }) => candidate);
  };
  /** Every name one or two edits (of letters, digits, `-` and `.`) away from a popular domain. */
  const slips = (domain: string): string[] => {
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-.";
    const out = new Set<string>();
    for (let i = 0; i <= domain.length; i++) {
      if (i < domain.length) out.add(domain.slice(0, i) + domain.slice(i + 1));
      if (i < domain.length - 1)
        out.add(domain.slice(0, i) + domain[i + 1] + domain[i] + domain.slice(i + 2));
      for (const c of alphabet) {
        out.add(domain.slice(0, i) + c + domain.slice(i));
        if (i < domain.length) out.add(domain.slice(0, i) + c + domain.slice(i + 1));
      }
    }
    return [...out].filter((slip) => !popular.includes(slip));
  };

  it("finds exactly what the distance alone finds, for every single slip and a sample of double slips", () => {
    const once = popular.flatMap(slips);
    const twice = once.filter((_, i) => i % 97 === 0).flatMap(slips);
    let compared = 0;
    for (const domain of [...once, ...twice]) {
      expect(index.suggest(domain), domain).toEqual(byDistanceAlone(domain));
      compared++;
    }
    expect(compared).toBeGreaterThan(10_000);
  });
});
