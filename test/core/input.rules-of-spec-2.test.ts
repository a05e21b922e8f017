import { describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { parseDomain, parseEmail, parseInput } from "../../src/core/input.js";

describe("domain inputs", () => {
  it.each([
    ["example.com", "example.com"],
    ["  Example.COM  ", "example.com"],
    ["example.com.", "example.com"],
    ["mail.sub.example.co.uk", "mail.sub.example.co.uk"],
    ["münchen.de", "xn--mnchen-3ya.de"],
    ["MÜNCHEN.DE", "xn--mnchen-3ya.de"],
    ["xn--mnchen-3ya.de", "xn--mnchen-3ya.de"],
    ["bücher.example", "xn--bcher-kva.example"],
    ["a-b.c-d.com", "a-b.c-d.com"],
    ["1password.com", "1password.com"],
    [`${"a".repeat(63)}.com`, `${"a".repeat(63)}.com`],
  ])("%s → %s", (raw, domain) => {
    expect(parseDomain(raw, TEST_NAMES_ON)).toEqual({
      ok: true,
      input: { kind: "domain", domain, localPart: null },
    });
  });

  it.each([
    ["", "missing_input"],
    ["   ", "missing_input"],
    ["localhost", "invalid_domain"],
    ["example..com", "invalid_domain"],
    [".example.com", "invalid_domain"],
    ["example.com..", "invalid_domain"],
    ["-example.com", "invalid_domain"],
    ["example-.com", "invalid_domain"],
    ["ex_ample.com", "invalid_domain"],
    ["exa mple.com", "invalid_domain"],
    ["example.123", "invalid_domain"],
    ["1.2.3.4", "invalid_domain"],
    ["[1.2.3.4]", "invalid_domain"],
    ["::1", "invalid_domain"],
    ["[::1]", "invalid_domain"],
    ["0x7f.1", "invalid_domain"],
    ["12345", "invalid_domain"],
    ["0x10", "invalid_domain"],
    ["example.0x7f", "invalid_domain"],
    ["1.2.3", "invalid_domain"],
    ["1.2.3.4.", "invalid_domain"],
    ["http://example.com", "invalid_domain"],
    ["example.com/path", "invalid_domain"],
    [`${"a".repeat(64)}.com`, "invalid_domain"],
    [`${"abcdefghi.".repeat(26)}com`, "invalid_domain"],
    ["a".repeat(321), "input_too_long"],
  ])("%j is rejected with %s", (raw, code) => {
    const result = parseDomain(raw, TEST_NAMES_ON);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem.code).toBe(code);
      expect(result.problem.detail.length).toBeGreaterThan(10);
    }
  });
});

describe("email inputs", () => {
  it.each([
    ["user@example.com", "user", "example.com"],
    ["User.Name+tag@Example.COM", "User.Name+tag", "example.com"],
    ['"john doe"@example.com', '"john doe"', "example.com"],
    ['"a@b"@example.com', '"a@b"', "example.com"],
    ["müller@bücher.de", "müller", "xn--bcher-kva.de"],
    ["o'brien@example.ie", "o'brien", "example.ie"],
    [`${"a".repeat(64)}@example.com`, "a".repeat(64), "example.com"],
  ])("%s → local %s at %s", (raw, localPart, domain) => {
    expect(parseEmail(raw, TEST_NAMES_ON)).toEqual({ ok: true, input: { kind: "email", domain, localPart } });
  });

  it.each([
    ["", "missing_input"],
    ["no-at-sign.example.com", "invalid_email"],
    ["@example.com", "invalid_email"],
    ["user@", "invalid_email"],
    ["a..b@example.com", "invalid_email"],
    [".a@example.com", "invalid_email"],
    ["a.@example.com", "invalid_email"],
    ["a b@example.com", "invalid_email"],
    ["a@b@example.com", "invalid_email"],
    ['"unclosed@example.com', "invalid_email"],
    ["user@[1.2.3.4]", "invalid_email"],
    ["user@localhost", "invalid_email"],
    ["user@exa_mple.com", "invalid_email"],
    [`${"a".repeat(65)}@example.com`, "invalid_email"],
    [`${"ü".repeat(33)}@example.com`, "invalid_email"],
    [`${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(60)}.com`, "invalid_email"],
    [`${"a".repeat(300)}@${"b".repeat(30)}.com`, "input_too_long"],
  ])("%j is rejected with %s", (raw, code) => {
    const result = parseEmail(raw, TEST_NAMES_ON);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem.code).toBe(code);
  });
});

describe("either input", () => {
  it("treats an input with @ as an email address and one without as a domain", () => {
    expect(parseInput("a@example.com", TEST_NAMES_ON)).toMatchObject({ ok: true, input: { kind: "email" } });
    expect(parseInput("example.com", TEST_NAMES_ON)).toMatchObject({ ok: true, input: { kind: "domain" } });
  });
});
