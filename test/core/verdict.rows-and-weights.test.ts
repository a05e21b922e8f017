import { describe, expect, it } from "vitest";
import type { Signals } from "../../src/core/gathered-signals.js";
import type { MailRouting } from "../../src/core/mail-routing.js";
import { roleAccount } from "../../src/core/signals/role-account.js";
import { unknownDomain } from "../../src/core/signals/unknown-domain.js";
import { decide, riskLevel, type VerdictBasis, verdictBasis } from "../../src/core/verdict.js";
import { routed, sampleSignals } from "./sample-signals.js";

const NOW = new Date("2026-11-22T12:00:00Z");
const DAY = 86_400_000;

const signals = sampleSignals;

const listed = { entry: "mailinator.com", name: null, sources: ["mailchecker"] };
const OVERRIDE = "Operator override";
const ACCOUNT = "Account list";
const status = (s: MailRouting["status"]): Partial<Signals> => ({
  routing: { ...routed, status: s, hosts: [] },
});
const categories = (c: Partial<Signals["categories"]>): Partial<Signals> => ({
  categories: { ...signals().categories, ...c },
  selfHosted: false,
});

describe("the fixed rows of docs/api.md §4.1 (first match wins)", () => {
  it.each([
    ["reserved name", { reserved: true }, false, true, 100, "Reserved example domain", "Reserved name"],
    [
      "reserved name, listed, parked and DNS down",
      { reserved: true, disposable: listed, parking: "Sedo", ...status("dns_timeout") },
      false,
      true,
      100,
      "Reserved example domain",
      "Reserved name",
    ],
    [
      "reserved name DNS says does not exist",
      { reserved: true, ...status("nxdomain") },
      false,
      true,
      100,
      "Reserved example domain",
      "Reserved name",
    ],
    ["NXDOMAIN", status("nxdomain"), false, true, 100, "Domain does not exist", "NXDOMAIN"],
    ["null MX", status("null_mx"), false, true, 100, "Domain does not accept email", "Null MX"],
    ["no MX, no A", status("no_mail"), false, true, 100, "Domain does not accept email", "No MX or A record"],
    [
      "no MX host exists",
      status("mx_missing"),
      false,
      true,
      100,
      "Domain does not accept email",
      "MX host does not exist",
    ],
    [
      "no MX host exists, listed disposable",
      { disposable: listed, ...status("mx_missing") },
      false,
      true,
      100,
      "Domain does not accept email",
      "MX host does not exist",
    ],
    [
      "listed disposable",
      { disposable: listed },
      true,
      true,
      95,
      "Disposable / temporary domain",
      "Disposable",
    ],
    [
      "listed disposable while DNS is down",
      { disposable: listed, ...status("dns_timeout") },
      true,
      true,
      95,
      "Disposable / temporary domain",
      "Disposable",
    ],
    [
      "one heuristic",
      {
        disposableHints: [
          { kind: "mx_host", value: "mx.tempmail.test", learnt: false, provider: "temp-mail.org" },
        ],
      },
      true,
      true,
      90,
      "Disposable / temporary domain",
      "Heuristics x1",
    ],
    [
      "two heuristics",
      {
        disposableHints: [
          { kind: "mx_host", value: "a", learnt: false, provider: "x" },
          { kind: "ns", value: "b", learnt: false, provider: "x" },
        ],
      },
      true,
      true,
      93,
      "Disposable / temporary domain",
      "Heuristics x2",
    ],
    ["parked", { parking: "Sedo" }, true, true, 85, "Parked domain", "Parked"],
    ["DNS timeout", status("dns_timeout"), true, false, 55, "Could not be checked right now", "DNS timeout"],
    ["DNS failure", status("dns_failure"), true, false, 55, "Could not be checked right now", "DNS failure"],
    [
      "free provider",
      categories({ free: { entry: "gmail.com", name: "Gmail", sources: [] } }),
      true,
      false,
      0,
      "Looks okay",
      "Public free provider",
    ],
    ["self-hosted", {}, true, false, 0, "Looks okay", "Self-hosted"],
    ["denied by the operator", { operator: "deny" }, true, true, 100, "Blocked by the operator", OVERRIDE],
    [
      "denied by the operator and listed",
      { operator: "deny", disposable: listed },
      true,
      true,
      100,
      "Blocked by the operator",
      OVERRIDE,
    ],
    [
      "denied by the operator, but DNS says it does not exist",
      { operator: "deny", ...status("nxdomain") },
      false,
      true,
      100,
      "Domain does not exist",
      "NXDOMAIN",
    ],
    ["allowed by the operator", { operator: "allow" }, true, false, 0, "Looks okay", OVERRIDE],
    [
      "allowed by the operator while DNS is down",
      { operator: "allow", ...status("dns_timeout") },
      true,
      false,
      55,
      "Could not be checked right now",
      "DNS timeout",
    ],
    [
      "blocked by the asking account's list",
      { account: { value: "example.org", action: "deny" } },
      true,
      true,
      100,
      "Blocked by the account's list",
      ACCOUNT,
    ],
    [
      "blocked by the asking account's list and listed",
      { account: { value: "example.org", action: "deny" }, disposable: listed },
      true,
      true,
      100,
      "Blocked by the account's list",
      ACCOUNT,
    ],
    [
      "blocked by the asking account's list, but DNS says it does not exist",
      { account: { value: "example.org", action: "deny" }, ...status("nxdomain") },
      false,
      true,
      100,
      "Domain does not exist",
      "NXDOMAIN",
    ],
    [
      "allowed by the asking account's list",
      { account: { value: "example.org", action: "allow" } },
      true,
      false,
      0,
      "Looks okay",
      ACCOUNT,
    ],
    [
      "allowed by the operator, blocked by the account's list: the operator's wins",
      { operator: "allow", account: { value: "example.org", action: "deny" } },
      true,
      false,
      0,
      "Looks okay",
      OVERRIDE,
    ],
    [
      "denied by the operator, allowed by the account's list: the operator's wins",
      { operator: "deny", account: { value: "example.org", action: "allow" } },
      true,
      true,
      100,
      "Blocked by the operator",
      OVERRIDE,
    ],
  ] as const)("%s", (_name, overrides, valid, block, risk, text, reason) => {
    const { status: _status, ...verdict } = decide(verdictBasis(signals(overrides as Partial<Signals>), NOW));
    expect(verdict).toEqual({ valid, block, risk, text, reason });
  });
});

describe("soft signals add up per the weight table", () => {
  it.each([
    ["unknown domain", { selfHosted: false }, 10, false, "Looks okay"],
    ["forwarder", categories({ forwarder: listed }), 35, false, "Email forwarding service"],
    [
      "typo of a popular domain",
      { typos: ["gmail.com"], selfHosted: false },
      55,
      false,
      "Possible typo of a popular domain",
    ],
    [
      "domain 3 days old",
      { createdAt: new Date(NOW.getTime() - 3 * DAY) },
      50,
      false,
      "Newly registered domain",
    ],
    ["domain 20 days old", { createdAt: new Date(NOW.getTime() - 20 * DAY) }, 25, false, "Looks okay"],
    ["domain 400 days old", { createdAt: new Date(NOW.getTime() - 400 * DAY) }, 0, false, "Looks okay"],
    [
      "typo and brand new: blocked",
      { typos: ["gmail.com"], createdAt: new Date(NOW.getTime() - DAY), selfHosted: false },
      100,
      true,
      "Newly registered domain",
    ],
    [
      "fallback MX",
      { routing: { ...routed, status: "fallback" as const }, selfHosted: true },
      25,
      false,
      "Looks okay",
    ],
    ["MX hosts do not resolve", { mxUnresolvable: true }, 40, false, "Mail servers do not resolve"],
  ] as const)("%s → risk %i", (_name, overrides, risk, block, text) => {
    const verdict = decide(verdictBasis(signals(overrides as Partial<Signals>), NOW));
    expect(verdict).toMatchObject({ valid: true, risk, block, text });
  });

  it("a known-good domain carries no soft risk, whatever else is seen", () => {
    const verdict = decide(
      verdictBasis(signals({ knownGood: true, typos: ["gmail.com"], selfHosted: false }), NOW),
    );
    expect(verdict).toMatchObject({ risk: 0, block: false, text: "Looks okay" });
  });

  it("DNS trouble keeps the risk within 50–79 even with heavy soft signals", () => {
    const verdict = decide(
      verdictBasis(
        signals({ ...status("dns_timeout"), typos: ["gmail.com"], createdAt: new Date(NOW.getTime() - DAY) }),
        NOW,
      ),
    );
    expect(verdict.risk).toBe(79);
    expect(verdict.block).toBe(false);
  });
});

describe("role accounts and levels", () => {
  it("raises a valid record's risk by 10 and blocks at the threshold", () => {
    const role = { risk: roleAccount.weight, heaviest: roleAccount };
    const weighed = (risk: number): VerdictBasis => ({
      row: null,
      soft: { risk, heaviest: unknownDomain },
      mainCategory: "",
    });
    const nxdomain: VerdictBasis = {
      ...weighed(0),
      row: { status: "nxdomain", risk: 100, reason: "NXDOMAIN" },
    };
    expect(decide(weighed(10), role).risk).toBe(20);
    expect(decide(weighed(75), role).block).toBe(true);
    expect(decide(nxdomain, role).risk).toBe(100);
  });

  it.each([
    [0, "LOW"],
    [29, "LOW"],
    [30, "MEDIUM"],
    [69, "MEDIUM"],
    [70, "HIGH"],
    [100, "HIGH"],
  ] as const)("risk %i is %s", (risk, level) => {
    expect(riskLevel(risk)).toBe(level);
  });
});
