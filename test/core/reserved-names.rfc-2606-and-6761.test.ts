import { describe, expect, it } from "vitest";
import { neverReceivesMail, reservedName } from "../../src/core/reserved-names.js";

describe("reserved names (RFC 2606, RFC 6761)", () => {
  it.each([
    ["example.com", "example.com", true],
    ["example.net", "example.net", true],
    ["example.org", "example.org", true],
    ["mail.example.com", "example.com", true],
    ["a.b.example.org", "example.org", true],
    ["invalid", "invalid", true],
    ["inbox.invalid", "invalid", true],
    ["localhost", "localhost", true],
    ["mail.localhost", "localhost", true],
    // Private testing names: reserved, but checked as ordinary names (RFC 6761 §6.2, §6.5).
    ["does-not-exist.test", "test", false],
    ["ns-a.dns-host.example", "example", false],
    ["example.com.test", "test", false],
  ] as const)("%s is reserved as %s (never receives mail: %s)", (domain, name, never) => {
    expect(reservedName(domain)?.name).toBe(name);
    expect(neverReceivesMail(domain)).toBe(never);
  });

  it.each([
    "example.co.uk",
    "example.de",
    "myexample.com",
    "example.com.au",
    "example.company",
    "testing.com",
    "localhost.com",
    "invalid.org",
    "com",
  ])("%s is not reserved", (domain) => {
    expect(reservedName(domain)).toBeUndefined();
    expect(neverReceivesMail(domain)).toBe(false);
  });
});
