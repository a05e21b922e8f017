/**
 * Properties of the input parser (docs/api.md "Inputs") over generated strings: any text —
 * Unicode, control characters, huge values — is either a valid input or a problem with
 * one of the field's codes, never a throw; the answer is stable; an accepted domain is
 * a valid A-label name that parses to itself; the one-scan path for plain names agrees
 * with the full rules.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import {
  MAX_INPUT_LENGTH,
  type ParseResult,
  parseDomain,
  parseDomainByRules,
  parseDomainName,
  parseEmail,
  parseInput,
  plainDomain,
} from "../../src/core/input.js";

const RUNS = { numRuns: 300 };
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Text of every kind: any code point, control characters, lone surrogates, huge values. */
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 80 }),
  fc.string({
    unit: fc.constantFrom("a", "Ü", ".", "@", "-", " ", "\t", "\0", "\u200b", '"', "\\", "ß", "xn--"),
    maxLength: 60,
  }),
  fc.string({
    unit: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)),
    maxLength: 20,
  }),
  fc.string({ unit: "binary-ascii", minLength: MAX_INPUT_LENGTH - 5, maxLength: 20_000 }),
  fc.string({ unit: fc.constantFrom("\ud800", "\udfff", "a", "@"), maxLength: 40 }),
);

/** Plausible names: labels of letters (both cases), digits, hyphens, a few others, dots, a trailing dot. */
const nameLike = fc
  .array(fc.string({ unit: fc.constantFrom(..."abcXYZ019-_é".split("")), minLength: 0, maxLength: 70 }), {
    minLength: 1,
    maxLength: 6,
  })
  .chain((labels) => fc.constantFrom(labels.join("."), `${labels.join(".")}.`, ` ${labels.join(".")} `));

const emailLike = fc
  .tuple(
    fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 70 }),
      fc.constantFrom('"a b"', "a.b", "a+tag", "a..b"),
    ),
    fc.oneof(nameLike, anyText),
  )
  .map(([local, domain]) => `${local}@${domain}`);

function expectWellFormed(result: ParseResult, codes: readonly string[]): void {
  if (result.ok) {
    const { domain } = result.input;
    expect(domain.length).toBeLessThanOrEqual(253);
    const labels = domain.split(".");
    expect(labels.length).toBeGreaterThanOrEqual(2);
    for (const label of labels) expect(label).toMatch(LABEL);
    // An accepted domain is its own normal form.
    const again = parseDomain(domain, TEST_NAMES_ON);
    expect(again.ok && again.input.domain).toBe(domain);
  } else {
    expect(codes).toContain(result.problem.code);
    expect(result.problem.detail.length).toBeGreaterThan(0);
  }
}

describe("input parsing over generated strings", () => {
  it("parseDomain never throws: a valid name or missing_input / input_too_long / invalid_domain", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, nameLike), (text) => {
        expectWellFormed(parseDomain(text, TEST_NAMES_ON), [
          "missing_input",
          "input_too_long",
          "invalid_domain",
        ]);
      }),
      RUNS,
    );
  });

  it("parseEmail never throws: a valid address or missing_input / input_too_long / invalid_email", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, emailLike), (text) => {
        const result = parseEmail(text, TEST_NAMES_ON);
        expectWellFormed(result, ["missing_input", "input_too_long", "invalid_email"]);
        if (result.ok) expect(text.trim()).toContain(`@`);
      }),
      RUNS,
    );
  });

  it("gives the same answer every time (a stable code) and parseInput routes by the @", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, nameLike, emailLike), (text) => {
        const first = parseInput(text, TEST_NAMES_ON);
        expect(parseInput(text, TEST_NAMES_ON)).toEqual(first);
        expect(first).toEqual(
          text.includes("@") ? parseEmail(text, TEST_NAMES_ON) : parseDomain(text, TEST_NAMES_ON),
        );
      }),
      RUNS,
    );
  });

  it("an input over 320 characters after trimming is input_too_long, whatever it holds", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
        fc.integer({ min: 321, max: 5000 }),
        (unit, length) => {
          const text = `x${unit}`.repeat(Math.ceil(length / (unit.length + 1))).slice(0, length);
          fc.pre(text.trim().length > MAX_INPUT_LENGTH && plainDomain(text.trim()) === undefined);
          expect(parseDomain(text, TEST_NAMES_ON)).toMatchObject({
            ok: false,
            problem: { code: "input_too_long" },
          });
          expect(parseEmail(text, TEST_NAMES_ON)).toMatchObject({
            ok: false,
            problem: { code: "input_too_long" },
          });
        },
      ),
      RUNS,
    );
  });

  it("the one-scan path for plain names agrees with the full rules", () => {
    fc.assert(
      fc.property(nameLike, (text) => {
        const trimmed = text.trim();
        const plain = plainDomain(trimmed);
        const full = parseDomainByRules(trimmed);
        if (plain !== undefined)
          expect(full).toEqual({ ok: true, input: { kind: "domain", domain: plain, localPart: null } });
        // A name of plain characters without an A-label that the rules accept takes the short way.
        if (full.ok && /^[a-z0-9.-]+$/i.test(trimmed) && !/(^|\.)xn--/i.test(trimmed)) {
          expect(plain).toBe(full.input.domain);
        }
        const viaParse = parseDomainName(text);
        expect(viaParse.ok ? viaParse.input.domain : viaParse.problem.code).toBe(
          full.ok ? full.input.domain : full.problem.code,
        );
      }),
      RUNS,
    );
  });
});
