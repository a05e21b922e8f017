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
});
