import { describe, expect, it } from "vitest";
import { randomIndex, seededRandom } from "../../harness/seeded-random.js";
import { parseDomainByRules, plainDomain } from "../../src/core/input.js";

/** Names near the edges of the rules: hyphens, dots, digits, hex, A-labels, case, non-ASCII, length. */
function nearMiss(random: () => number): string {
  const pieces = [
    "a",
    "z",
    "0",
    "9",
    "-",
    "xn--",
    "0x",
    "f",
    "g",
    "K",
    "ü",
    "\u212a",
    "_",
    " ",
    ":",
    "",
    "co",
    "com",
  ];
  const labels: string[] = [];
  for (let count = 1 + randomIndex(random, 4); labels.length < count; ) {
    let label = "";
    for (let i = 1 + randomIndex(random, 4); i > 0; i--) label += pieces[randomIndex(random, pieces.length)];
    labels.push(random() < 0.03 ? label.padEnd(60 + randomIndex(random, 8), "b") : label);
  }
  const name = labels.join(".");
  return random() < 0.05 ? `${`${"b".repeat(50)}.`.repeat(5)}${name}` : random() < 0.1 ? `${name}.` : name;
}

describe("the short way for plain names", () => {
  it.each(["example.com", "Example.COM.", "a-b.c-d.co.uk", "1password.com", `${"a".repeat(63)}.com`])(
    "takes %s",
    (name) => {
      expect(plainDomain(name)).toBe(name.toLowerCase().replace(/\.$/, ""));
    },
  );

  it.each([
    "xn--mnchen-3ya.de",
    "a.xn--p1ai",
    "münchen.de",
    "12345",
    "a.0x10",
    "a.123",
    "-a.com",
    "a-.com",
    "a..com",
    "com",
    "a_b.com",
    `${"a".repeat(64)}.com`,
  ])("leaves %s to the full rules", (name) => {
    expect(plainDomain(name)).toBeUndefined();
  });

  it("answers only what the full rules answer, over 100,000 near misses", () => {
    const random = seededRandom(7);
    let taken = 0;
    for (let i = 0; i < 100_000; i++) {
      const name = nearMiss(random);
      const plain = plainDomain(name);
      if (plain === undefined) continue;
      taken++;
      expect(parseDomainByRules(name), name).toEqual({
        ok: true,
        input: { kind: "domain", domain: plain, localPart: null },
      });
    }
    // The generator makes enough plain names for the comparison to mean something.
    expect(taken).toBeGreaterThan(5_000);
  });
});
