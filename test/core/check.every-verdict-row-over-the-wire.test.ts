/**
 * Every row of docs/api.md "Verdicts" (and the category rows docs/verdicts.md adds), decided by the
 * whole engine from real DNS answers of the loopback server (fixture engine.json).
 * Risks follow the weight table in docs/verdicts.md; where a row has a range
 * (≥ 90, 50–79 …) the test checks the range as well.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CheckRecord } from "../../src/core/record.js";
import { daysBefore, type EngineOverTheWire, NOW, startEngine } from "./engine-over-the-wire.js";

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
});
afterAll(() => engine.close());

type Verdict = Pick<CheckRecord, "valid" | "block" | "risk" | "text" | "reason">;

/** [what, input, expected verdict, the row's bounds for the risk]. */
type Row = [string, string, Verdict, [number, number]];

const RESERVED = "Reserved example domain";
const EXISTS_NOT = "Domain does not exist";
const NO_EMAIL = "Domain does not accept email";
const NOT_FROM_INTERNET = "Domain does not accept email from the internet";
const DISPOSABLE = "Disposable / temporary domain";
const UNCHECKED = "Could not be checked right now";
const OKAY = "Looks okay";

function v(valid: boolean, block: boolean, risk: number, text: string, reason: string): Verdict {
  return { valid, block, risk, text, reason };
}

const FIXED_ROWS: Row[] = [
  ["NXDOMAIN", "does-not-exist.test", v(false, true, 100, EXISTS_NOT, "NXDOMAIN"), [100, 100]],
  [
    "NXDOMAIN of a listed typo domain",
    "hotmial.com",
    v(false, true, 100, EXISTS_NOT, "NXDOMAIN"),
    [100, 100],
  ],
  ["null MX beside an A record", "null-mx.test", v(false, true, 100, NO_EMAIL, "Null MX"), [100, 100]],
  ["neither MX nor A/AAAA", "no-mail.test", v(false, true, 100, NO_EMAIL, "No MX or A record"), [100, 100]],
  [
    "the only MX host does not exist",
    "dangling-mx.test",
    v(false, true, 100, NO_EMAIL, "MX host does not exist"),
    [100, 100],
  ],
  [
    "neither MX host exists, one under a provider's domain",
    "dangling-mx-pair.test",
    v(false, true, 100, NO_EMAIL, "MX host does not exist"),
    [100, 100],
  ],
  [
    "the only MX host is on a private address",
    "private-mx.test",
    v(false, true, 100, NOT_FROM_INTERNET, "MX on a private address"),
    [100, 100],
  ],
  [
    "MX hosts on loopback, link-local and IPv4-mapped private addresses",
    "loopback-mx.test",
    v(false, true, 100, NOT_FROM_INTERNET, "MX on a private address"),
    [100, 100],
  ],
  ["listed disposable domain", "mailinator.com", v(true, true, 95, DISPOSABLE, "Disposable"), [90, 100]],
  [
    "under a listed disposable domain",
    "deep.sub.fakeinbox.com",
    v(true, true, 95, DISPOSABLE, "Disposable"),
    [90, 100],
  ],
  ["listed typo domain", "gmial.com", v(true, true, 95, DISPOSABLE, "Disposable"), [90, 100]],
  [
    "listed disposable domain while its DNS times out",
    "emailondeck.com",
    v(true, true, 95, DISPOSABLE, "Disposable"),
    [90, 100],
  ],
  [
    "MX on disposable infrastructure",
    "burner-catchall.test",
    v(true, true, 90, DISPOSABLE, "Heuristics x1"),
    [90, 100],
  ],
  [
    "name servers on disposable infrastructure",
    "burner-ns.test",
    v(true, true, 90, DISPOSABLE, "Heuristics x1"),
    [90, 100],
  ],
  [
    "MX on a host of a listed disposable domain",
    "relay-to-throwaway.test",
    v(true, true, 90, DISPOSABLE, "Heuristics x1"),
    [90, 100],
  ],
  [
    "three independent disposable signals (90 + 3·2)",
    "burner-three.test",
    v(true, true, 96, DISPOSABLE, "Heuristics x3"),
    [90, 100],
  ],
  [
    "parked: NS, MX and A at Sedo",
    "parked-domain.test",
    v(true, true, 85, "Parked domain", "Parked"),
    [80, 100],
  ],
  [
    "parked: NS alone at Bodis",
    "parked-ns-only.test",
    v(true, true, 85, "Parked domain", "Parked"),
    [80, 100],
  ],
  // Row 7: 55 + the soft signals; a domain DNS tells nothing about is an unknown domain (+10).
  ["every query times out", "timeout.test", v(true, false, 65, UNCHECKED, "DNS timeout"), [50, 79]],
  ["MX times out, A answers", "mx-timeout.test", v(true, false, 65, UNCHECKED, "DNS timeout"), [50, 79]],
  ["no MX and A times out", "a-timeout.test", v(true, false, 65, UNCHECKED, "DNS timeout"), [50, 79]],
  ["SERVFAIL", "servfail.test", v(true, false, 65, UNCHECKED, "DNS failure"), [50, 79]],
  ["REFUSED", "refused.test", v(true, false, 65, UNCHECKED, "DNS failure"), [50, 79]],
  // A listed mailbox provider does not vanish: its NXDOMAIN is the resolver's fault.
  [
    "NXDOMAIN of a listed mailbox provider",
    "yahoo.com",
    v(true, false, 55, UNCHECKED, "DNS failure"),
    [50, 79],
  ],
  [
    "no mail host at a listed mailbox provider",
    "outlook.com",
    v(true, false, 55, UNCHECKED, "DNS failure"),
    [50, 79],
  ],
  [
    "NXDOMAIN under a mailbox provider",
    "nosuch.gmail.com",
    v(false, true, 100, EXISTS_NOT, "NXDOMAIN"),
    [100, 100],
  ],
  [
    "a typo whose DNS times out: 55 + 45 + 10, kept at 79",
    "outlookk.com",
    v(true, false, 79, UNCHECKED, "DNS timeout"),
    [50, 79],
  ],
  // The MX host lies under the domain: self-hosted, no soft signal, so 55.
  [
    "MX answers, its host's addresses time out",
    "mx-host-timeout.test",
    v(true, false, 55, UNCHECKED, "DNS timeout"),
    [50, 79],
  ],
  [
    "MX answers, its host's addresses SERVFAIL",
    "mx-host-servfail.test",
    v(true, false, 55, UNCHECKED, "DNS failure"),
    [50, 79],
  ],
];

const SOFT_ROWS: Row[] = [
  [
    "possible typo (45), own mail server",
    "otlook.com",
    v(true, false, 45, "Possible typo of a popular domain", "Possible typo"),
    [30, 79],
  ],
  [
    "registered 3 days ago (50)",
    "fresh.test",
    v(true, false, 50, "Newly registered domain", "Domain age < 7 days"),
    [30, 79],
  ],
  [
    "typo (45) registered 2 days ago (50): blocked at ≥ 80",
    "yhoo.com",
    v(true, true, 95, "Newly registered domain", "Domain age < 7 days"),
    [80, 100],
  ],
  [
    "listed forwarding service (35)",
    "simplelogin.com",
    v(true, false, 35, "Email forwarding service", "Forwarder"),
    [30, 69],
  ],
  [
    "MX on a forwarding service (35)",
    "cf-routed.test",
    v(true, false, 35, "Email forwarding service", "Forwarder"),
    [30, 69],
  ],
  [
    "an email-API service's own domain (30)",
    "sendgrid.net",
    v(true, false, 30, "Email API service domain", "Email API"),
    [30, 69],
  ],
  [
    "the MX host exists without an address (40)",
    "mx-no-address.test",
    v(true, false, 40, "Mail servers do not resolve", "MX unresolvable"),
    [30, 69],
  ],
];

const CLEAN_ROWS: Row[] = [
  ["public free provider", "gmail.com", v(true, false, 0, OKAY, "Public free provider"), [0, 29]],
  [
    "listed free provider near popular names",
    "email.com",
    v(true, false, 0, OKAY, "Public free provider"),
    [0, 29],
  ],
  ["public premium provider", "posteo.de", v(true, false, 0, OKAY, "Public premium provider"), [0, 29]],
  ["ISP subscriber domain", "t-online.de", v(true, false, 0, OKAY, "ISP email"), [0, 29]],
  ["MX on Google Workspace", "google-hosted.test", v(true, false, 0, OKAY, "Business provider"), [0, 29]],
  [
    "subdomain with its own MX",
    "eu.google-hosted.test",
    v(true, false, 0, OKAY, "Business provider"),
    [0, 29],
  ],
  [
    "listed business provider",
    "contoso.onmicrosoft.com",
    v(true, false, 0, OKAY, "Business provider"),
    [0, 29],
  ],
  ["MX at a web host", "hostinger-customer.test", v(true, false, 0, OKAY, "Web hosting email"), [0, 29]],
  ["MX on an email API", "inbound-parse.test", v(true, false, 0, OKAY, "Email API"), [0, 29]],
  ["own MX host", "example-selfhosted.test", v(true, false, 0, OKAY, "Self-hosted"), [0, 29]],
  ["the MX host is the domain", "mx-is-domain.test", v(true, false, 0, OKAY, "Self-hosted"), [0, 29]],
  [
    "one of two own MX hosts resolves",
    "unresolvable-mx.test",
    v(true, false, 0, OKAY, "Self-hosted"),
    [0, 29],
  ],
  ["IPv6-only own MX host", "ipv6-only-mx.test", v(true, false, 0, OKAY, "Self-hosted"), [0, 29]],
  ["fallback to the domain (25)", "fallback.test", v(true, false, 25, OKAY, "Self-hosted"), [0, 29]],
  ["registered 20 days ago (25)", "month-old.test", v(true, false, 25, OKAY, "Self-hosted"), [0, 29]],
  ["IDN with its own MX", "münchen.de", v(true, false, 0, OKAY, "Self-hosted"), [0, 29]],
  ["a parking service's own domain", "sedoparking.com", v(true, false, 0, OKAY, "Self-hosted"), [0, 29]],
  ["known-good domain, MX at an unknown gateway", "gm.com", v(true, false, 0, OKAY, "Known domain"), [0, 29]],
  ["unknown domain (10)", "third-party-mx.test", v(true, false, 10, OKAY, "Valid domain"), [0, 29]],
  [
    "unknown domain whose name servers fail",
    "ns-servfail.test",
    v(true, false, 10, OKAY, "Valid domain"),
    [0, 29],
  ],
  [
    "public suffix on Mailinator and Sedo",
    "herokuapp.com",
    v(true, false, 10, OKAY, "Valid domain"),
    [0, 29],
  ],
];

function expectRow(record: CheckRecord, expected: Verdict, [min, max]: [number, number]): void {
  expect({
    valid: record.valid,
    block: record.block,
    risk: record.risk,
    text: record.text,
    reason: record.reason,
  }).toEqual(expected);
  expect(record.risk).toBeGreaterThanOrEqual(min);
  expect(record.risk).toBeLessThanOrEqual(max);
  // docs/api.md "The record" `block`: invalid, disposable, parked, or risk ≥ 80.
  expect(record.block).toBe(!record.valid || record.is_disposable || record.is_parked || record.risk >= 80);
}

// Row 0 is decided from the name whatever DNS says. `.test` and `.example` names are
// reserved too, but checked as ordinary names (RFC 6761 §6.2, §6.5) under TEST_NAMES: every
// fixture here. `.invalid` and `.localhost` names never reach a check: the parser refuses
// them (test/http/public-names.internal-names-never-reach-dns-and-private-mx-addresses-never-show.test.ts).
describe("checkDomain over the wire: reserved names take row 0 (docs/verdicts.md)", () => {
  it.each([
    ["served with a null MX", "example.com"],
    ["DNS says does not exist", "example.net"],
    ["with MX on Mailinator: never disposable", "example.org"],
    ["under a reserved name", "www.example.com"],
  ])("%s (%s)", async (_what, input) => {
    expectRow(await engine.check(input), v(false, true, 100, RESERVED, "Reserved name"), [100, 100]);
  });
});

describe("checkDomain over the wire: the fixed rows of docs/api.md §4.1", () => {
  it.each(FIXED_ROWS)("%s (%s)", async (_what, input, expected, bounds) => {
    expectRow(await engine.check(input), expected, bounds);
  });
});

describe("checkDomain over the wire: soft signals add up (docs/verdicts.md row 8)", () => {
  it.each(SOFT_ROWS)("%s (%s)", async (_what, input, expected, bounds) => {
    expectRow(await engine.check(input), expected, bounds);
  });
});

describe("checkDomain over the wire: clean records name the main category (row 9)", () => {
  it.each(CLEAN_ROWS)("%s (%s)", async (_what, input, expected, bounds) => {
    expectRow(await engine.check(input), expected, bounds);
  });
});

describe("role accounts (email inputs only)", () => {
  it.each([
    ["admin@gmail.com", v(true, false, 10, OKAY, "Public free provider"), true],
    ["info+sales@otlook.com", v(true, false, 55, "Possible typo of a popular domain", "Possible typo"), true],
    ["Postmaster@example-selfhosted.test", v(true, false, 10, OKAY, "Self-hosted"), true],
    ["admin@does-not-exist.test", v(false, true, 100, EXISTS_NOT, "NXDOMAIN"), true],
    ["jane.doe@gmail.com", v(true, false, 0, OKAY, "Public free provider"), false],
    ["gmail.com", v(true, false, 0, OKAY, "Public free provider"), false],
  ] as const)("%s", async (input, expected, role) => {
    const record = await engine.check(input);
    expect(record.is_role_based_email).toBe(role);
    expectRow(record, expected, [0, 100]);
  });

  it("can push a record over the block threshold (79 + 10) and caps at 100", async () => {
    expect(await engine.check("admin@outlookk.com")).toMatchObject({
      is_role_based_email: true,
      valid: true,
      risk: 89,
      block: true,
      reason: "DNS timeout",
    });
    expect(await engine.check("abuse@yhoo.com")).toMatchObject({ risk: 100, block: true });
  });
});

describe("timestamps and age (docs/api.md §4)", () => {
  it("stamps the first block status change with the clock, seconds precision, +00:00", async () => {
    expect((await engine.check("gmail.com")).block_status_changed_at).toBe("2026-11-22T12:00:00+00:00");
  });

  it.each([
    ["gmail.com", 11_424, "1995-08-13T04:00:00+00:00"],
    ["fresh.test", 3, "2026-11-19T12:00:00+00:00"],
    ["month-old.test", 20, "2026-11-02T12:00:00+00:00"],
    ["third-party-mx.test", null, null],
  ] as const)("%s is %s days old", async (input, days, created) => {
    const record = await engine.check(input);
    expect(record.domain_age_days).toBe(days);
    expect(record.domain_created_at).toBe(created);
  });
});
