/**
 * The signals that need DNS and lists together, over the wire: disposable heuristics
 * ("Heuristics xN": MX or NS on a disposable service's machines), parking by name
 * servers, and typo suggestions — and the domains that must never get them (known-good
 * domains, listed providers, public suffixes, a parking service's own domain).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineOverTheWire, startEngine } from "./engine-over-the-wire.js";

let engine: EngineOverTheWire;

beforeAll(async () => {
  engine = await startEngine();
});
afterAll(() => engine.close());

describe("disposable heuristics", () => {
  it.each([
    // [domain, what is seen, N, service]
    ["burner-catchall.test", "two MX hosts mail(2).mailinator.com: one signal", 1, "mailinator.com"],
    ["burner-ns.test", "own MX, both NS at ns1/ns2.mailinator.com: one signal", 1, "mailinator.com"],
    ["relay-to-throwaway.test", "MX mx.throwawaymail.com (listed, not curated)", 1, "throwawaymail.com"],
    ["burner-three.test", "MX on Mailinator and Guerrilla Mail, NS on YOPmail", 3, "mailinator.com"],
  ])("%s: %s → Heuristics x%i", async (domain, _seen, n, service) => {
    const record = await engine.check(domain);
    expect(record).toMatchObject({
      valid: true,
      block: true,
      is_disposable: true,
      text: "Disposable / temporary domain",
      reason: `Heuristics x${n}`,
      risk: Math.min(99, 90 + 3 * (n - 1)),
      disposable_provider: service,
    });
  });

  it("does not count a disposable service's own machines against its own domain as heuristics", async () => {
    // mailinator.com is listed: the list decides (Disposable), not its own MX and NS.
    expect(await engine.check("mailinator.com")).toMatchObject({ reason: "Disposable", risk: 95 });
  });

  it("never makes a public suffix disposable, even with MX on Mailinator", async () => {
    const record = await engine.check("herokuapp.com");
    expect(record).toMatchObject({ is_disposable: false, disposable_provider: null, block: false });
  });

  it("never makes a known-good or forwarding domain disposable", async () => {
    for (const domain of ["gmail.com", "gm.com", "simplelogin.com", "cf-routed.test"]) {
      const record = await engine.check(domain);
      expect([domain, record.is_disposable, record.block]).toEqual([domain, false, false]);
    }
  });
});

describe("parking", () => {
  it.each([
    ["parked-domain.test", "Sedo NS, MX and A"],
    ["parked-ns-only.test", "Bodis NS, no MX"],
    ["parked-at-afternic.test", "Afternic NS, a service some disposable lists name"],
  ])("marks %s parked, not self-hosted (%s)", async (domain) => {
    expect(await engine.check(domain)).toMatchObject({
      is_parked: true,
      is_self_hosted: false,
      block: true,
      reason: "Parked",
    });
  });

  it("does not mark a parking service's own domain parked because of its own name servers", async () => {
    const record = await engine.check("sedoparking.com");
    expect(record).toMatchObject({ valid: true, is_parked: false, block: false, text: "Looks okay" });
    expect(record.mx_host).toBe("mx.sedoparking.com");
  });

  it("never marks a public suffix parked, even with NS at Sedo", async () => {
    expect(await engine.check("herokuapp.com")).toMatchObject({ is_parked: false, reason: "Valid domain" });
  });
});

describe("typo suggestions", () => {
  it.each([
    ["otlook.com", "on no list, with its own mail", ["outlook.com"]],
    ["gmial.com", "docs/api.md §4's own example, on the disposable lists", ["gmail.com"]],
    ["hotmial.com", "does not exist", ["hotmail.com"]],
    ["outlookk.com", "DNS times out", ["outlook.com"]],
  ])("suggests for %s (%s)", async (domain, _what, suggestions) => {
    expect((await engine.check(domain)).possible_typo).toEqual(suggestions);
  });

  it("suggests for the domain of an address", async () => {
    expect((await engine.check("user@otlook.com")).possible_typo).toEqual(["outlook.com"]);
  });

  it.each([
    ["gm.com", "known-good, one edit from gmx.com"],
    ["email.com", "listed free provider, one edit from gmail.com, mail.com and ymail.com"],
    ["gmail.com", "itself popular"],
    ["yopmail.com", "a listed disposable service's own domain, two slips from hotmail.com"],
    ["nomail.com", "a listed disposable domain, two slips from gmail.com and hotmail.com"],
    ["example.org", "a reserved name"],
    ["google-hosted.test", "far from every popular name"],
  ])("never suggests for %s (%s)", async (domain) => {
    expect((await engine.check(domain)).possible_typo).toEqual([]);
  });
});
