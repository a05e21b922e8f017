/**
 * Public names only (docs/security.md): what the parser and the MX address rule take as
 * public, with TEST_NAMES off (the default of a deployment) and on (test set-ups). On
 * opens `.test`, `.example` and the documentation and benchmarking ranges only: never
 * `.local`, `.internal`, `home.arpa`, loopback, private or link-local addresses.
 */
import { describe, expect, it } from "vitest";
import { parseDomain, parseInput } from "../../src/core/input.js";
import { isPublicAddress } from "../../src/core/public-addresses.js";

const ALWAYS_REFUSED = [
  "printer.local",
  "db.prod.internal",
  "nas.home.arpa",
  "x.arpa",
  "secrets-db.corp",
  "router.lan",
  "mail.localhost",
  "inbox.invalid",
  "hidden.onion",
  "name.alt",
];
const TEST_ONLY = ["shop.test", "a.example", "mx1.example.test"];
// .za is in the Public Suffix List only through its second-level rules (ac.za, co.za …).
const PUBLIC = [
  "gmail.com",
  "example.com",
  "bbc.co.uk",
  "xn--mnchen-3ya.de",
  "münchen.de",
  "пример.рф",
  "uct.ac.za",
  "mail.uct.ac.za",
  "co.za",
];

const NEVER_PUBLIC_ADDRESSES = [
  "10.0.0.5",
  "172.16.3.4",
  "192.168.1.1",
  "127.0.0.1",
  "169.254.169.254",
  "100.64.0.1",
  "224.0.0.1",
  "0.1.2.3",
  "240.0.0.1",
  "255.255.255.255",
  "::1",
  "::",
  "fc00::1",
  "fd12:3456::1",
  "fe80::1",
  "ff02::1",
  "::ffff:10.20.30.40",
  "::ffff:127.0.0.1",
  "not an address",
];
const TEST_ADDRESSES = [
  "192.0.2.1",
  "198.51.100.7",
  "203.0.113.9",
  "198.18.0.1",
  "198.19.255.1",
  "2001:db8::1",
];
const PUBLIC_ADDRESSES = ["8.8.8.8", "142.250.1.27", "2a00:1450:4001::1b", "::ffff:8.8.8.8", "100.128.0.1"];

describe.each([
  ["off", false],
  ["on", true],
])("TEST_NAMES %s", (_label, on) => {
  const rules = { testNames: on };
  it("refuses special-use and non-public names as invalid_domain, with a detail", () => {
    for (const name of ALWAYS_REFUSED) {
      const parsed = parseDomain(name, rules);
      expect(parsed.ok, name).toBe(false);
      if (!parsed.ok) {
        expect(parsed.problem.code).toBe("invalid_domain");
        expect(parsed.problem.detail).toContain(name);
      }
      expect(parseInput(`jane@${name}`, rules)).toMatchObject({
        ok: false,
        problem: { code: "invalid_email" },
      });
    }
  });

  it("takes names under public top-level domains, IDNs included", () => {
    for (const name of PUBLIC) expect(parseDomain(name, rules).ok, name).toBe(true);
  });

  it(`${on ? "takes" : "refuses"} .test and .example names`, () => {
    for (const name of TEST_ONLY) expect(parseDomain(name, rules).ok, name).toBe(on);
  });

  it(`never takes loopback, private, link-local or reserved addresses; ${on ? "takes" : "refuses"} the test ranges`, () => {
    for (const ip of NEVER_PUBLIC_ADDRESSES) expect(isPublicAddress(ip, rules), ip).toBe(false);
    for (const ip of TEST_ADDRESSES) expect(isPublicAddress(ip, rules), ip).toBe(on);
    for (const ip of PUBLIC_ADDRESSES) expect(isPublicAddress(ip, rules), ip).toBe(true);
  });
});

it("names the reason: a special-use name's RFC, or the missing public suffix", () => {
  const rules = { testNames: false };
  expect(parseDomain("printer.local", rules)).toMatchObject({
    ok: false,
    problem: { detail: expect.stringContaining("RFC 6762") },
  });
  expect(parseDomain("secrets-db.corp", rules)).toMatchObject({
    ok: false,
    problem: { detail: expect.stringContaining("Public Suffix List") },
  });
});
